#pragma once
#define FLIP_ROWS 4096
#define FLIP_COLS 4000
#define FLIP_BLOCK 16
