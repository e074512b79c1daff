// peer.h: the C peer of the tiny GPU call (peer.c).
#ifndef TINYCALL_PEER_H
#define TINYCALL_PEER_H

typedef struct peer peer;

// peer_open creates an instance, the default adapter's device and the
// tiny call's pipeline and buffers from the WGSL source; NULL on failure.
peer *peer_open(const char *wgsl_src);
// peer_adapter is the adapter's name.
const char *peer_adapter(peer *p);
// peer_call makes one tiny call of k dispatches: 0 when the value read
// back is right, -1 when the map failed, -2 when the value is wrong.
int peer_call(peer *p, int k);

#endif
