//===- ApiTable.cpp - The table a module calls through --------------------===//
#include "kiln/Emu/ApiEntries.h"
#include "kiln/Emu/Instructions.h"

namespace kiln::emu {

const Api &emulatorApi() {
  static const Api Table = {
      AbiVersion,           api::selfRegs,      api::barSync,
      api::barArrive,       api::syncWarp,      api::trap,
      api::shflSync,        api::voteSync,      api::cvtaToShared,
      api::ldShared,        api::stShared,      api::checkAccess,
      api::mbarInit,        api::fenceMbarInit, api::mbarArrive,
      api::mbarTryWait,     api::tmaLoad,       api::tmaPrefetch,
      api::fenceProxyAsync, api::cpAsync,       api::cpAsyncCommit,
      api::cpAsyncWait,     api::ldmatrix,      api::mmaSync,
      api::wgmmaFence,      api::wgmmaMma,      api::wgmmaCommit,
      api::wgmmaWait,       api::clusterArrive, api::clusterWait,
      api::setMaxNReg,      api::convertBits,   api::tmaStore,
      api::bulkCommit,      api::bulkWait,      api::fenceOperand,
  };
  return Table;
}

} // namespace kiln::emu
