# ks-nvcc.mk: compile a Makefile's CUDA code through ks-nvcc.
#
#   include PREFIX/share/ks-nvcc/make/ks-nvcc.mk
#
# Include it after the Makefile sets NVCC (or at the top, if the Makefile
# uses `NVCC ?= ...`). It sets NVCC to ks-nvcc and exports KS_NVCC, the real
# nvcc that ks-nvcc runs:
#   - KS_NVCC, if already set;
#   - else the NVCC the Makefile had, if that names a file that is not ks-nvcc;
#   - else $(CUDA_HOME)/bin/nvcc, if CUDA_HOME is set;
#   - else nothing, and ks-nvcc looks on PATH (skipping itself), then in
#     CUDA_HOME, CUDA_PATH and /usr/local/cuda.
# KS_NVCC_WRAPPER names ks-nvcc (default: PREFIX/bin/ks-nvcc next to this
# file's install location, else ks-nvcc on PATH). `make NVCC=...` on the
# command line overrides this file.

_ks_nvcc_mk_dir := $(dir $(lastword $(MAKEFILE_LIST)))

# PREFIX/share/ks-nvcc/make -> PREFIX/bin; integration/make -> the top of
# the source tree. Files only (a/. exists only for a directory a).
_ks_nvcc_try := $(_ks_nvcc_mk_dir)../../../bin/ks-nvcc $(_ks_nvcc_mk_dir)../../ks-nvcc
KS_NVCC_WRAPPER ?= $(firstword $(abspath $(foreach f,$(_ks_nvcc_try),\
	$(if $(wildcard $(f)/.),,$(wildcard $(f))))) ks-nvcc)

ifeq ($(strip $(KS_NVCC)),)
  ifneq ($(filter-out ks-nvcc,$(notdir $(realpath $(NVCC)))),)
    KS_NVCC := $(NVCC)
  else ifneq ($(strip $(CUDA_HOME)),)
    KS_NVCC := $(CUDA_HOME)/bin/nvcc
  endif
endif
ifneq ($(strip $(KS_NVCC)),)
  export KS_NVCC
endif

NVCC := $(KS_NVCC_WRAPPER)
