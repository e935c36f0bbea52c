// libFuzzer's driver, called from each fuzzer's entry point. SwiftPM links an
// executable target's `main` to `<Module>_main`, so the fuzzers define that
// and hand over to libFuzzer here instead of using libFuzzer's own main.
#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
