#pragma once
// Writing a .tar.gz as OPA's bundle writer does (Go's archive/tar through
// gzip): regular files, mode 0600, owner 0, time 0, in the order added.
// Names of up to 100 bytes (or splittable into ustar's prefix and name) are
// plain ustar; longer ones get a PAX "path" record, as Go writes them.

#include <string>
#include <string_view>

namespace gavel::engine::bundle {

class TarWriter {
public:
    void add_file(std::string_view name, std::string_view bytes);
    // The archive: the entries, two zero blocks, gzip-compressed.
    std::string finish_gz();
    // The uncompressed tar (tests).
    std::string finish_tar();

private:
    void header(std::string_view name, std::size_t size, char type);
    std::string tar_;
};

}  // namespace gavel::engine::bundle
