#pragma once
// Reading a whole file, with the error as OPA words it ("open F: permission
// denied", "read F: is a directory"), so that a caller never takes a file it
// could not read for an empty one.

#include <string>

namespace gavel::engine {

struct FileRead {
    bool ok = false;
    std::string text;     // the bytes, when ok
    int error = 0;        // errno, when not
    std::string message;  // when not: "<open|read> PATH: <error>"
};

FileRead read_whole_file(const std::string& path);

}  // namespace gavel::engine
