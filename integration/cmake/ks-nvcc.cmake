# ks-nvcc.cmake: a CMake toolchain file that sends CUDA compiles through
# ks-nvcc.
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=PREFIX/share/ks-nvcc/cmake/ks-nvcc.cmake ...
#
# To combine it with a toolchain file of your own, include() this file from
# yours, or name yours in KS_NVCC_CHAINLOAD_TOOLCHAIN_FILE.
#
# Two styles, chosen by the cache variable KS_NVCC_STYLE.
#
# launcher (the default)
#   CMAKE_CUDA_COMPILER          = the real nvcc
#   CMAKE_CUDA_COMPILER_LAUNCHER = ks-nvcc
#   CMake identifies the real nvcc on its own and puts the launcher only in
#   front of compile commands (-c, or -dc with CUDA_SEPARABLE_COMPILATION),
#   so ks-nvcc runs as `ks-nvcc /path/to/nvcc <nvcc args>`. Compiler
#   identification, the device link (-dlink) and the final link do not go
#   through it. Launchers run as a chain, `l1 l2 ... nvcc args`, each one
#   running the rest of the line, so ks-nvcc goes LAST: it must see
#   `nvcc args`. A launcher that was already set (the CMAKE_CUDA_COMPILER_LAUNCHER
#   cache entry or environment variable) stays in front of it. Stacking
#   caveats:
#   - ccache in front (`ccache ks-nvcc nvcc args`): ccache takes the nvcc path
#     for a second source file, caches nothing ("multiple_source_files") and
#     just runs the line. Builds stay correct; CUDA compiles are not cached.
#     If ccache did cache there, it would key on ks-nvcc's mtime and keep
#     serving objects built before a verified variant existed. To cache CUDA
#     compiles with ccache, see integration/README.md (CCACHE_PREFIX).
#   - sccache in front: where sccache caches an nvcc compile it runs nvcc's
#     steps itself and ks-nvcc never sees the source. Keep sccache for C/C++.
#
# compiler (-DKS_NVCC_STYLE=compiler)
#   CMAKE_CUDA_COMPILER = ks-nvcc
#   CUDAToolkit_ROOT    = the real toolkit, for find_package(CUDAToolkit)
#   Every nvcc call goes through ks-nvcc, identification included; ks-nvcc
#   passes what it does not compile through untouched, and the `#$ TOP=` line
#   of nvcc -v tells CMake where the toolkit is. At build time ks-nvcc finds
#   the real nvcc by itself (KS_NVCC, then PATH without itself, then
#   CUDA_HOME, CUDA_PATH, /usr/local/cuda); if that is not the nvcc found
#   here, this file warns, and exporting KS_NVCC for the build fixes it.
#   Setting CMAKE_CUDA_COMPILER to ks-nvcc (or CUDACXX=ks-nvcc) without this
#   file gives the same thing.
#
# Inputs (cache variables; KS_NVCC_WRAPPER and KS_NVCC also read the
# environment variable of the same name):
#   KS_NVCC_STYLE    launcher | compiler
#   KS_NVCC_WRAPPER  the ks-nvcc program. Default: PREFIX/bin/ks-nvcc when
#                    this file is installed as
#                    PREFIX/share/ks-nvcc/cmake/ks-nvcc.cmake, else the
#                    ks-nvcc built at the top of the source tree, else
#                    ks-nvcc on PATH.
#   KS_NVCC          the real nvcc. Default: CMAKE_CUDA_COMPILER (unless it
#                    is ks-nvcc), CUDACXX, nvcc on PATH (skipping any nvcc
#                    that is ks-nvcc, such as PREFIX/lib/ks-nvcc/bin/nvcc),
#                    then $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin.
#   KS_NVCC_CHAINLOAD_TOOLCHAIN_FILE  a toolchain file to load first.
#
# try_compile() projects (compiler checks) get neither the launcher nor any
# other change: their CUDA compiler comes from the main project.

set(_ks_nvcc_list_dir "${CMAKE_CURRENT_LIST_DIR}")

if(KS_NVCC_CHAINLOAD_TOOLCHAIN_FILE)
  # try_compile() projects read this file too and must load the same one.
  list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES
    KS_NVCC_CHAINLOAD_TOOLCHAIN_FILE)
  list(REMOVE_DUPLICATES CMAKE_TRY_COMPILE_PLATFORM_VARIABLES)
  include("${KS_NVCC_CHAINLOAD_TOOLCHAIN_FILE}")
endif()

get_property(_ks_nvcc_in_try_compile GLOBAL PROPERTY IN_TRY_COMPILE)
if(_ks_nvcc_in_try_compile)
  return()
endif()

# TRUE in OUT if PATH is ks-nvcc: the wrapper itself, or any link or copy
# named ks-nvcc (the nvcc link in PREFIX/lib/ks-nvcc/bin resolves to one).
function(_ks_nvcc_is_wrapper path out)
  set(result FALSE)
  if(path)
    get_filename_component(real "${path}" REALPATH)
    get_filename_component(name "${real}" NAME)
    if(name STREQUAL "ks-nvcc")
      set(result TRUE)
    elseif(KS_NVCC_WRAPPER)
      get_filename_component(wrapper_real "${KS_NVCC_WRAPPER}" REALPATH)
      if(real STREQUAL wrapper_real)
        set(result TRUE)
      endif()
    endif()
  endif()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# The path of an executable named by CANDIDATE (a path, or a name looked up on
# PATH), or "" when there is none.
function(_ks_nvcc_resolve candidate out)
  set(result "")
  if(candidate)
    if(IS_ABSOLUTE "${candidate}" OR candidate MATCHES "/")
      get_filename_component(result "${candidate}" ABSOLUTE)
      if(NOT EXISTS "${result}" OR IS_DIRECTORY "${result}")
        set(result "")
      endif()
    else()
      string(REPLACE ":" ";" dirs "$ENV{PATH}")
      foreach(dir IN LISTS dirs)
        if(dir AND EXISTS "${dir}/${candidate}"
            AND NOT IS_DIRECTORY "${dir}/${candidate}")
          set(result "${dir}/${candidate}")
          break()
        endif()
      endforeach()
    endif()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# message() once per cmake run: CMake reads this file more than once.
function(_ks_nvcc_message mode)
  string(CONCAT text ${ARGN})
  string(MD5 id "${mode}${text}")
  get_property(done GLOBAL PROPERTY _KS_NVCC_SAID_${id})
  if(NOT done)
    message(${mode} "ks-nvcc: ${text}")
    set_property(GLOBAL PROPERTY _KS_NVCC_SAID_${id} TRUE)
  endif()
endfunction()

set(KS_NVCC_STYLE "launcher" CACHE STRING
  "How CMake runs ks-nvcc: launcher (CMAKE_CUDA_COMPILER_LAUNCHER) or compiler (CMAKE_CUDA_COMPILER)")
set_property(CACHE KS_NVCC_STYLE PROPERTY STRINGS launcher compiler)

# The wrapper.
set(_ks_nvcc_wrapper "")
if(KS_NVCC_WRAPPER)
  _ks_nvcc_resolve("${KS_NVCC_WRAPPER}" _ks_nvcc_wrapper)
  if(NOT _ks_nvcc_wrapper)
    message(FATAL_ERROR "ks-nvcc.cmake: KS_NVCC_WRAPPER=${KS_NVCC_WRAPPER} not found")
  endif()
else()
  if(NOT "$ENV{KS_NVCC_WRAPPER}" STREQUAL "")
    _ks_nvcc_resolve("$ENV{KS_NVCC_WRAPPER}" _ks_nvcc_wrapper)
  endif()
  foreach(_ks_nvcc_try
      "${_ks_nvcc_list_dir}/../../../bin/ks-nvcc"   # PREFIX/share/ks-nvcc/cmake
      "${_ks_nvcc_list_dir}/../../ks-nvcc")         # source tree: integration/cmake
    if(NOT _ks_nvcc_wrapper AND EXISTS "${_ks_nvcc_try}"
        AND NOT IS_DIRECTORY "${_ks_nvcc_try}")
      get_filename_component(_ks_nvcc_wrapper "${_ks_nvcc_try}" ABSOLUTE)
    endif()
  endforeach()
  if(NOT _ks_nvcc_wrapper)
    _ks_nvcc_resolve(ks-nvcc _ks_nvcc_wrapper)
  endif()
  if(NOT _ks_nvcc_wrapper)
    message(FATAL_ERROR
      "ks-nvcc.cmake: ks-nvcc not found (looked at KS_NVCC_WRAPPER, "
      "${_ks_nvcc_list_dir}/../../../bin, the source tree and PATH). "
      "Set -DKS_NVCC_WRAPPER=/path/to/ks-nvcc.")
  endif()
endif()
set(KS_NVCC_WRAPPER "${_ks_nvcc_wrapper}" CACHE FILEPATH "The ks-nvcc program"
  FORCE)

# A CUDA compiler that is ks-nvcc already means compiler style.
if(CMAKE_CUDA_COMPILER AND KS_NVCC_STYLE STREQUAL "launcher")
  _ks_nvcc_resolve("${CMAKE_CUDA_COMPILER}" _ks_nvcc_cc)
  _ks_nvcc_is_wrapper("${_ks_nvcc_cc}" _ks_nvcc_cc_is_wrapper)
  if(_ks_nvcc_cc_is_wrapper)
    _ks_nvcc_message(STATUS "CMAKE_CUDA_COMPILER is ks-nvcc: compiler style")
    set_property(CACHE KS_NVCC_STYLE PROPERTY VALUE compiler)
  endif()
endif()

# The real nvcc: the first candidate that exists and is not ks-nvcc.
set(_ks_nvcc_real "")
set(_ks_nvcc_real_args "")
set(_ks_nvcc_candidates "")
if(CMAKE_CUDA_COMPILER)
  list(APPEND _ks_nvcc_candidates "${CMAKE_CUDA_COMPILER}")
endif()
if(KS_NVCC)
  list(APPEND _ks_nvcc_candidates "${KS_NVCC}")
endif()
if(NOT "$ENV{KS_NVCC}" STREQUAL "")
  list(APPEND _ks_nvcc_candidates "$ENV{KS_NVCC}")
endif()
if(NOT "$ENV{CUDACXX}" STREQUAL "")
  # CUDACXX may carry arguments ("nvcc -ccbin g++-12"); they are kept below.
  get_filename_component(_ks_nvcc_cudacxx "$ENV{CUDACXX}" PROGRAM
    PROGRAM_ARGS _ks_nvcc_cudacxx_args)
  list(APPEND _ks_nvcc_candidates "${_ks_nvcc_cudacxx}")
endif()
string(REPLACE ":" ";" _ks_nvcc_path "$ENV{PATH}")
foreach(_ks_nvcc_dir IN LISTS _ks_nvcc_path)
  if(_ks_nvcc_dir)
    list(APPEND _ks_nvcc_candidates "${_ks_nvcc_dir}/nvcc")
  endif()
endforeach()
foreach(_ks_nvcc_var CUDA_HOME CUDA_PATH)
  if(NOT "$ENV{${_ks_nvcc_var}}" STREQUAL "")
    list(APPEND _ks_nvcc_candidates "$ENV{${_ks_nvcc_var}}/bin/nvcc")
  endif()
endforeach()
list(APPEND _ks_nvcc_candidates /usr/local/cuda/bin/nvcc)

foreach(_ks_nvcc_try IN LISTS _ks_nvcc_candidates)
  _ks_nvcc_resolve("${_ks_nvcc_try}" _ks_nvcc_try_path)
  _ks_nvcc_is_wrapper("${_ks_nvcc_try_path}" _ks_nvcc_try_is_wrapper)
  if(_ks_nvcc_try_path AND NOT _ks_nvcc_try_is_wrapper)
    set(_ks_nvcc_real "${_ks_nvcc_try_path}")
    if(DEFINED _ks_nvcc_cudacxx AND _ks_nvcc_try STREQUAL _ks_nvcc_cudacxx)
      set(_ks_nvcc_real_args "${_ks_nvcc_cudacxx_args}")
    endif()
    break()
  endif()
endforeach()
if(NOT _ks_nvcc_real)
  message(FATAL_ERROR
    "ks-nvcc.cmake: no real nvcc found (looked at CMAKE_CUDA_COMPILER, "
    "KS_NVCC, CUDACXX, PATH, CUDA_HOME, CUDA_PATH, /usr/local/cuda). "
    "Set -DKS_NVCC=/path/to/cuda/bin/nvcc.")
endif()
set(KS_NVCC "${_ks_nvcc_real}" CACHE FILEPATH "The real nvcc behind ks-nvcc")
if(_ks_nvcc_real_args AND NOT DEFINED CACHE{CMAKE_CUDA_COMPILER_ARG1})
  set(CMAKE_CUDA_COMPILER_ARG1 "${_ks_nvcc_real_args}" CACHE STRING
    "Arguments to CUDA compiler")
endif()

# Launchers set before this file: the cache entry, else the environment.
if(DEFINED CACHE{CMAKE_CUDA_COMPILER_LAUNCHER})
  set(_ks_nvcc_launchers "$CACHE{CMAKE_CUDA_COMPILER_LAUNCHER}")
elseif(NOT "$ENV{CMAKE_CUDA_COMPILER_LAUNCHER}" STREQUAL "")
  set(_ks_nvcc_launchers "$ENV{CMAKE_CUDA_COMPILER_LAUNCHER}")
else()
  set(_ks_nvcc_launchers "")
endif()

if(KS_NVCC_STYLE STREQUAL "compiler")
  foreach(_ks_nvcc_l IN LISTS _ks_nvcc_launchers)
    get_filename_component(_ks_nvcc_l_name "${_ks_nvcc_l}" NAME)
    if(_ks_nvcc_l_name MATCHES "^s?ccache")
      _ks_nvcc_message(WARNING
        "${_ks_nvcc_l_name} in CMAKE_CUDA_COMPILER_LAUNCHER caches what "
        "ks-nvcc compiles, keyed on ks-nvcc's mtime: it keeps serving objects "
        "built before a variant was added or removed. Use the launcher style "
        "or see the ks-nvcc integration/README.md.")
    endif()
  endforeach()

  # The toolkit root, as nvcc reports it ("#$ TOP=..." in -v output, the
  # line CMake itself reads); else the directory above bin/.
  set(_ks_nvcc_root "")
  execute_process(COMMAND "${_ks_nvcc_real}" -v __ks_nvcc_probe__.cu
    OUTPUT_VARIABLE _ks_nvcc_out ERROR_VARIABLE _ks_nvcc_out
    RESULT_VARIABLE _ks_nvcc_rc)
  if(_ks_nvcc_out MATCHES "#\\$ TOP=([^\r\n]*)")
    get_filename_component(_ks_nvcc_root "${CMAKE_MATCH_1}" REALPATH)
  endif()
  if(NOT _ks_nvcc_root OR NOT EXISTS "${_ks_nvcc_root}")
    get_filename_component(_ks_nvcc_root "${_ks_nvcc_real}" REALPATH)
    get_filename_component(_ks_nvcc_root "${_ks_nvcc_root}" DIRECTORY)
    get_filename_component(_ks_nvcc_root "${_ks_nvcc_root}" DIRECTORY)
  endif()
  set(CUDAToolkit_ROOT "${_ks_nvcc_root}")

  # Cache the wrapper too: a cached CMAKE_CUDA_COMPILER that differs from the
  # compiler CMake identified makes the next configure throw the cache away.
  set(CMAKE_CUDA_COMPILER "${KS_NVCC_WRAPPER}" CACHE FILEPATH
    "CUDA compiler" FORCE)

  # Will ks-nvcc find this same nvcc when the build runs it?
  if("$ENV{KS_NVCC}" STREQUAL "")
    execute_process(COMMAND "${KS_NVCC_WRAPPER}" --version
      OUTPUT_VARIABLE _ks_nvcc_v1 ERROR_QUIET)
    execute_process(COMMAND "${_ks_nvcc_real}" --version
      OUTPUT_VARIABLE _ks_nvcc_v2 ERROR_QUIET)
    if(NOT _ks_nvcc_v1 STREQUAL _ks_nvcc_v2)
      _ks_nvcc_message(WARNING
        "`${KS_NVCC_WRAPPER} --version` differs from "
        "`${_ks_nvcc_real} --version`: at build time ks-nvcc would run "
        "another nvcc. Export KS_NVCC=${_ks_nvcc_real} for the build.")
    endif()
  endif()
  _ks_nvcc_message(STATUS "compiler style, ${KS_NVCC_WRAPPER} (real nvcc ${_ks_nvcc_real}, toolkit ${_ks_nvcc_root})")
else()
  set(CMAKE_CUDA_COMPILER "${_ks_nvcc_real}")

  # Launchers given before stay in front; ks-nvcc goes last, once.
  set(_ks_nvcc_launcher_list "")
  foreach(_ks_nvcc_l IN LISTS _ks_nvcc_launchers)
    _ks_nvcc_resolve("${_ks_nvcc_l}" _ks_nvcc_l_path)
    _ks_nvcc_is_wrapper("${_ks_nvcc_l_path}" _ks_nvcc_l_is_wrapper)
    if(_ks_nvcc_l_is_wrapper)
      continue()
    endif()
    list(APPEND _ks_nvcc_launcher_list "${_ks_nvcc_l}")
    get_filename_component(_ks_nvcc_l_name "${_ks_nvcc_l}" NAME)
    if(_ks_nvcc_l_name MATCHES "^s?ccache")
      _ks_nvcc_message(WARNING
        "${_ks_nvcc_l_name} stays in front of ks-nvcc in "
        "CMAKE_CUDA_COMPILER_LAUNCHER. Builds stay correct, but it caches "
        "no CUDA compile there (ccache), or bypasses ks-nvcc where it does "
        "(sccache). See the ks-nvcc integration/README.md.")
    endif()
  endforeach()
  list(APPEND _ks_nvcc_launcher_list "${KS_NVCC_WRAPPER}")
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${_ks_nvcc_launcher_list}")
  _ks_nvcc_message(STATUS "launcher style, ${KS_NVCC_WRAPPER} in front of ${_ks_nvcc_real}")
endif()
