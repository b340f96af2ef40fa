/*
 * The one place the product version is written down.  The build reads it
 * (pkg-config), the tools print it for -V/--version, the broker names it
 * in the HANDSHAKE answer and in the metrics.
 */
#ifndef FLUME_PROTO_VERSION_H
#define FLUME_PROTO_VERSION_H

#define FLUME_VERSION		"0.2.0"
#define FLUME_BROKER_NAME	"flume " FLUME_VERSION

#endif
