// The program's one include of its kernels: flip_h's header comes in
// through this one, as programs that gather their kernels in one header do.
#pragma once
#include "flip.cuh"
