/*
 * host_config.h -- forwards to crt/host_config.h.
 */
#include "crt/host_config.h"
