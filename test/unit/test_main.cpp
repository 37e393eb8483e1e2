// doctest's main, run on a large stack as gavel's own main runs its commands
// (runtime/large_stack.hpp): tests walk programs as deep as the parser accepts.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "runtime/large_stack.hpp"

int main(int argc, char** argv) {
    gavel::runtime::use_large_thread_stacks();
    return gavel::runtime::run_on_large_stack([&] { return doctest::Context(argc, argv).run(); });
}
