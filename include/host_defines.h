/*
 * host_defines.h -- forwards to crt/host_defines.h, where CUDA 11 keeps the keywords.
 */
#include "crt/host_defines.h"
