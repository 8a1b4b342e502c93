/* status.c - names of reply error codes; see status.h. */
#include "status.h"

const char *status_name(enum status s)
{
	switch (s) {
	case STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
	case STATUS_NOT_FOUND: return "NOT_FOUND";
	case STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
	case STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
	case STATUS_PERMISSION_DENIED: return "PERMISSION_DENIED";
	case STATUS_UNAVAILABLE: return "UNAVAILABLE";
	case STATUS_INTERNAL: return "INTERNAL";
	}
	return "INTERNAL";
}
