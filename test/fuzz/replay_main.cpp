// A fuzz target without libFuzzer: runs LLVMFuzzerTestOneInput on every file
// of the directories given, so a committed corpus is a regression test in
// ordinary and sanitizer builds. A crash fails the test; the last file named
// on stderr is the input that caused it.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runtime/large_stack.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int replay(int argc, char** argv) {
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; ++i) {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(argv[i], ec))
            if (entry.is_regular_file()) files.push_back(entry.path());
        if (ec) {
            std::fprintf(stderr, "cannot read %s: %s\n", argv[i], ec.message().c_str());
            return 2;
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        std::fprintf(stderr, "no inputs\n");
        return 2;
    }
    for (const auto& file : files) {
        std::ifstream in(file, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::fprintf(stderr, "%s\n", file.filename().c_str());
        LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("%zu inputs, no crash\n", files.size());
    return 0;
}

}  // namespace

// On a large stack, as gavel's own main runs its commands: the corpus holds
// programs as deep as the parser accepts (runtime/large_stack.hpp).
int main(int argc, char** argv) {
    gavel::runtime::use_large_thread_stacks();
    return gavel::runtime::run_on_large_stack([&] { return replay(argc, argv); });
}
