/*
 * status.h - the error codes of a failed reply ({"ok": false, "error":
 * {"code", "message"}}). Names follow the gRPC status codes so that clients
 * of the design sandboxd follows map them one to one.
 */
#ifndef SANDBOXD_STATUS_H
#define SANDBOXD_STATUS_H

enum status {
	STATUS_INVALID_ARGUMENT = 1, /* the request is malformed or out of range */
	STATUS_NOT_FOUND,	     /* it names something that does not exist */
	STATUS_FAILED_PRECONDITION,  /* valid, but not in the current state */
	STATUS_RESOURCE_EXHAUSTED,   /* a bounded queue or table is full */
	STATUS_PERMISSION_DENIED,    /* the caller may not do this */
	STATUS_UNAVAILABLE,	     /* the daemon is shutting down or overloaded */
	STATUS_INTERNAL,	     /* a fault of the daemon, not the caller */
};

const char *status_name(enum status s);

#endif
