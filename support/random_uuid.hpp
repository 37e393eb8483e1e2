#pragma once
// Random (version 4) UUIDs from OpenSSL's CSPRNG, for uuid.rfc4122 and the server's
// decision and instance ids: 122 random bits, so ids made by any number of replicas and
// restarts do not collide.

#include <string>

namespace gavel::support {

// The lower-case 36-character form; empty when the random source fails.
std::string random_uuid();

}  // namespace gavel::support
