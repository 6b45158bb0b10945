# Finds kiln's dependencies and says plainly what to install when one is
# missing (scripts/install-deps.sh installs them all on Debian).

set(KILN_INSTALL_HINT "run scripts/install-deps.sh (Debian bookworm)")

# --- LLVM / MLIR 19 ---------------------------------------------------------
find_package(MLIR CONFIG HINTS ${MLIR_DIR} /usr/lib/llvm-19/lib/cmake/mlir)
if(NOT MLIR_FOUND OR NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR
    "MLIR 19 not found: install llvm-19-dev libmlir-19-dev mlir-19-tools "
    "llvm-19-tools (${KILN_INSTALL_HINT}), or pass -DMLIR_DIR=<prefix>/lib/cmake/mlir")
endif()
message(STATUS "kiln: MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)
include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
add_definitions(${LLVM_DEFINITIONS})
if(NOT LLVM_ENABLE_RTTI)
  set(KILN_NO_RTTI_FLAG -fno-rtti)
endif()

find_program(KILN_FILECHECK FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(KILN_NOT not HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_file(KILN_LIT lit.py HINTS ${LLVM_BUILD_UTILS}/lit
          /usr/lib/llvm-19/build/utils/lit NO_DEFAULT_PATH)
find_program(KILN_LIT_BIN NAMES lit lit.py llvm-lit)

# Debian links MLIR's static libraries against the shared libLLVM. For a
# self-contained kiln binary, point them at LLVM's static component
# libraries instead (and drop the optional z3 solver, unused by MLIR).
if(KILN_STATIC_LLVM)
  find_library(KILN_ZLIB_STATIC libz.a)
  find_library(KILN_ZSTD_STATIC libzstd.a)
  set(_kiln_compress)
  foreach(lib KILN_ZLIB_STATIC KILN_ZSTD_STATIC)
    if(${lib})
      list(APPEND _kiln_compress ${${lib}})
    endif()
  endforeach()
  set_target_properties(LLVMSupport PROPERTIES
    INTERFACE_LINK_LIBRARIES "rt;dl;m;pthread;${_kiln_compress};LLVMDemangle")
  get_property(_kiln_targets DIRECTORY PROPERTY IMPORTED_TARGETS)
  foreach(tgt ${_kiln_targets})
    if(tgt MATCHES "^MLIR")
      get_target_property(_libs ${tgt} INTERFACE_LINK_LIBRARIES)
      if(_libs)
        list(TRANSFORM _libs REPLACE "^LLVM$" "LLVMSupport;LLVMCore;LLVMAsmParser;LLVMBitReader;LLVMBitWriter")
        set_target_properties(${tgt} PROPERTIES INTERFACE_LINK_LIBRARIES "${_libs}")
      endif()
    endif()
  endforeach()
endif()

# --- CUDA 13 toolkit: NVRTC and cuda.h ---------------------------------------
find_package(CUDAToolkit 12.8)
if(NOT CUDAToolkit_FOUND)
  message(FATAL_ERROR
    "CUDA toolkit not found: kiln needs NVRTC and cuda.h from the CUDA 13 "
    "toolkit (expected at /usr/local/cuda; set CUDAToolkit_ROOT otherwise)")
endif()
message(STATUS "kiln: CUDA ${CUDAToolkit_VERSION} at ${CUDAToolkit_LIBRARY_DIR}")

# --- Catch2 v2 and TOML++ ----------------------------------------------------
find_path(KILN_CATCH2_INCLUDE catch2/catch.hpp)
if(KILN_BUILD_TESTS AND NOT KILN_CATCH2_INCLUDE)
  message(FATAL_ERROR "Catch2 not found: install catch2 (${KILN_INSTALL_HINT})")
endif()
find_path(KILN_TOMLPP_INCLUDE NAMES toml++/toml.hpp toml++/toml.h)
if(NOT KILN_TOMLPP_INCLUDE)
  message(FATAL_ERROR
    "TOML++ not found: install libtomlplusplus-dev (${KILN_INSTALL_HINT})")
endif()
