//===- Module.cpp - A kernel module built for the emulator ----------------===//
#include "kiln/Emu/Module.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kiln::emu {

namespace {

bool readHeader(const void *Image, Elf64_Ehdr &H) {
  std::memcpy(&H, Image, sizeof(H));
  return std::memcmp(H.e_ident, ELFMAG, SELFMAG) == 0 &&
         H.e_ident[EI_CLASS] == ELFCLASS64;
}

struct PhdrSearch {
  uintptr_t Bias;
  std::vector<std::pair<uintptr_t, uintptr_t>> *Out;
};

int collectSegments(struct dl_phdr_info *Info, size_t, void *Data) {
  auto *S = static_cast<PhdrSearch *>(Data);
  if (Info->dlpi_addr != S->Bias)
    return 0;
  for (int I = 0; I < Info->dlpi_phnum; ++I)
    if (Info->dlpi_phdr[I].p_type == PT_LOAD) {
      uintptr_t Lo = Info->dlpi_addr + Info->dlpi_phdr[I].p_vaddr;
      S->Out->push_back({Lo, Lo + Info->dlpi_phdr[I].p_memsz});
    }
  return 1;
}

/// "…/templates/kiln/gemm/x.cuh:94" -> "kiln/gemm/x.cuh:94".
std::string trimPath(const std::string &P) {
  size_t K = P.rfind("/kiln/");
  if (K != std::string::npos)
    return P.substr(K + 1);
  size_t S = P.rfind('/');
  return S == std::string::npos ? P : P.substr(S + 1);
}

} // namespace

size_t elfImageBytes(const void *Image) {
  Elf64_Ehdr H;
  if (!readHeader(Image, H))
    return 0;
  return size_t(H.e_shoff) + size_t(H.e_shnum) * H.e_shentsize;
}

bool Module::isEmulatorImage(const void *Image, size_t Bytes) {
  Elf64_Ehdr H;
  return Bytes >= sizeof(H) && readHeader(Image, H) && H.e_type == ET_DYN &&
         H.e_machine == EM_X86_64;
}

bool Module::isCubin(const void *Image, size_t Bytes) {
  Elf64_Ehdr H;
  return Bytes >= sizeof(H) && readHeader(Image, H) &&
         H.e_machine == 190; // EM_CUDA
}

std::unique_ptr<Module> Module::load(const void *Image, size_t Bytes,
                                     const Api *Entries, std::string *Why) {
  std::unique_ptr<Module> M(new Module());
  M->Image.assign(static_cast<const char *>(Image), Bytes);
  M->Fd = memfd_create("kiln-emu-module", MFD_CLOEXEC);
  if (M->Fd < 0 || write(M->Fd, Image, Bytes) != ssize_t(Bytes)) {
    *Why = "cannot write the module to a memory file";
    return nullptr;
  }
  std::string Path = "/proc/self/fd/" + std::to_string(M->Fd);
  dlerror();
  M->Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!M->Handle) {
    const char *E = dlerror();
    *Why = std::string("dlopen: ") + (E ? E : "failed");
    return nullptr;
  }
  auto *Abi =
      static_cast<const uint32_t *>(dlsym(M->Handle, "kiln_emu_module_abi"));
  auto **ApiSlot = static_cast<const Api **>(dlsym(M->Handle, "kiln_emu_api"));
  if (!Abi || !ApiSlot) {
    *Why = "not a kiln emulator module (no kiln_emu_module_abi)";
    return nullptr;
  }
  if (*Abi != AbiVersion) {
    *Why = "module ABI version " + std::to_string(*Abi) +
           ", the emulator speaks " + std::to_string(AbiVersion) +
           " (rebuild the kernel with this kiln)";
    return nullptr;
  }
  *ApiSlot = Entries;
  struct link_map *Map = nullptr;
  if (dlinfo(M->Handle, RTLD_DI_LINKMAP, &Map) == 0 && Map) {
    M->LoadBias = Map->l_addr;
    PhdrSearch S{M->LoadBias, &M->Segments};
    dl_iterate_phdr(collectSegments, &S);
  }
  return M;
}

Module::~Module() {
  if (Handle)
    dlclose(Handle);
  if (Fd >= 0)
    close(Fd);
}

const KernelInfo *Module::kernel(const std::string &Name) const {
  auto *K = static_cast<const KernelInfo *>(
      dlsym(Handle, ("kiln_emu_kernel_" + Name).c_str()));
  return K && K->AbiVersion == AbiVersion ? K : nullptr;
}

bool Module::contains(uintptr_t P) const {
  for (const auto &[Lo, Hi] : Segments)
    if (P >= Lo && P < Hi)
      return true;
  return false;
}

std::string Module::describePc(const void *Pc) const {
  uintptr_t P = uintptr_t(Pc);
  if (!contains(P))
    return "";
  // Write the image once to a temporary file addr2line can read.
  char Tmp[] = "/tmp/kiln-emu-module-XXXXXX";
  int F = mkstemp(Tmp);
  if (F < 0)
    return "";
  bool Ok = write(F, Image.data(), Image.size()) == ssize_t(Image.size());
  close(F);
  std::string Result;
  if (Ok) {
    char Cmd[512];
    // The call's return address: step back one byte into the call itself.
    std::snprintf(Cmd, sizeof(Cmd),
                  "addr2line -e '%s' -f -C -i 0x%llx 2>/dev/null", Tmp,
                  (unsigned long long)(P - LoadBias - 1));
    if (FILE *Pipe = popen(Cmd, "r")) {
      char Line[4096];
      std::string Function, Location;
      // -i prints the innermost inlined frame first: function, then file:line.
      if (std::fgets(Line, sizeof(Line), Pipe)) {
        Function = Line;
        if (std::fgets(Line, sizeof(Line), Pipe))
          Location = Line;
      }
      pclose(Pipe);
      while (!Function.empty() && (Function.back() == '\n'))
        Function.pop_back();
      while (!Location.empty() && (Location.back() == '\n'))
        Location.pop_back();
      size_t Paren = Location.find(" (");
      if (Paren != std::string::npos)
        Location.resize(Paren);
      if (!Location.empty() && Location.rfind("??", 0) != 0) {
        if (Function.size() > 120)
          Function = Function.substr(0, 117) + "...";
        Result = trimPath(Location) + " (" + Function + ")";
      }
    }
  }
  unlink(Tmp);
  return Result;
}

} // namespace kiln::emu
