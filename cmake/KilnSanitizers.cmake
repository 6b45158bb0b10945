# Sanitizer and fuzzing builds (off by default; the normal build is
# unchanged). KILN_SANITIZE=address,undefined compiles and links all of
# kiln's code with those sanitizers (scripts/test-sanitized.sh); KILN_FUZZ=ON
# also instruments it for libFuzzer and builds tests/fuzz (scripts/fuzz.sh).
# Both want clang (libclang-rt-19-dev: scripts/install-fuzz-deps.sh).

option(KILN_FUZZ "Build the libFuzzer targets of tests/fuzz (needs clang)" OFF)
set(KILN_SANITIZE "" CACHE STRING
    "Sanitizers for all of kiln's code, e.g. address,undefined (empty: none)")

if(KILN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "KILN_FUZZ needs clang (libFuzzer): configure with "
            "-DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19 "
            "(scripts/fuzz.sh does)")
  endif()
  if(NOT KILN_SANITIZE)
    set(KILN_SANITIZE address,undefined)
  endif()
  # Coverage for the fuzzer in every library; the targets add the driver.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(KILN_SANITIZE)
  message(STATUS "kiln: sanitizers ${KILN_SANITIZE}")
  # Undefined behaviour stops the program, as a memory error does.
  add_compile_options(-fsanitize=${KILN_SANITIZE}
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${KILN_SANITIZE})
  # CUDA::nvrtc brings the driver stub (stubs/libcuda.so) along; kiln opens
  # the driver with dlopen and must not need libcuda.so.1 to start. Debian's
  # g++ links --as-needed, but not with -fsanitize, and clang never does.
  add_link_options(-Wl,--as-needed)
endif()
