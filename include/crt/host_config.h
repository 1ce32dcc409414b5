/*
 * crt/host_config.h -- hostdnn's stand-in: a host compiler is always acceptable here.
 */
#ifndef __HOST_CONFIG_H__
#define __HOST_CONFIG_H__
#endif
