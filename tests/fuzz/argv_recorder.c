/*
 * The compiler the argv fuzzer gives ks-nvcc (KS_NVCC): writes its
 * arguments, each followed by a NUL, to $KS_FUZZ_ARGV_OUT, and answers
 * `--version` as nvcc 13.0 does. Its name holds no "nvcc", so that no
 * fuzzed first word can make it a launcher-form compiler by accident.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	const char *out = getenv("KS_FUZZ_ARGV_OUT");
	int i, fd;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		fputs("nvcc: NVIDIA (R) Cuda compiler driver\n"
		      "Cuda compilation tools, release 13.0, V13.0.88\n", stdout);
	}
	if (!out)
		return 2;
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return 3;
	for (i = 1; i < argc; i++)
		if (write(fd, argv[i], strlen(argv[i]) + 1) < 0)
			return 4;
	return close(fd) ? 5 : 0;
}
