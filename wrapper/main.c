#include "ksnvcc.h"

int
main(int argc, char **argv)
{
	return ks_nvcc_main(argc, argv);
}
