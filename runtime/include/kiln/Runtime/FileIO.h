//===- FileIO.h - Whole reads and writes on file descriptors ----*- C++ -*-===//
//
// What kiln's on-disk caches (compile cache, tuning cache) share: reading
// and writing everything through a descriptor, retrying on EINTR and short
// transfers. Both return false with errno set on failure.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_FILEIO_H
#define KILN_RUNTIME_FILEIO_H

#include <string>
#include <string_view>

namespace kiln {

/// Writes all of Data to Fd.
bool writeAll(int Fd, std::string_view Data);

/// Appends everything left in Fd to Out.
bool readAll(int Fd, std::string &Out);

} // namespace kiln

#endif // KILN_RUNTIME_FILEIO_H
