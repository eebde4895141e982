#include "replay.h"

int
main(int argc, char **argv)
{
	return ks_replay_main(argc, argv);
}
