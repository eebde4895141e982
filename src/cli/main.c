#include "ks.h"

int
main(int argc, char **argv)
{
	return ks_main(argc, argv);
}
