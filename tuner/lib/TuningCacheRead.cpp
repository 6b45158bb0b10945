//===- TuningCacheRead.cpp - Reading a tuning cache file with TOML++ ------===//
//
// Turns the text of a cache file into entries and located problems. A file
// that is not TOML, lacks or has a bad schema_version or entry_count (a file
// cut short), is Corrupt and yields nothing; a file of a newer schema is left
// alone; an entry with a missing or bad field is skipped with a sentence
// naming it and where it is, and the others are kept.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/TuningCache.h"

#include "Toml.h"

#include "kiln/Runtime/FileKind.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>

namespace kiln::tuner {

namespace {

std::string where(const std::string &Origin, const toml::source_region &R) {
  if (!R.begin)
    return Origin;
  return Origin + ":" + std::to_string(R.begin.line) + ":" +
         std::to_string(R.begin.column);
}

/// Reads the fields of one [[entry]]; the first problem stops it.
class EntryReader {
public:
  EntryReader(const toml::table &T, std::string Origin, size_t Index)
      : T(T), Origin(std::move(Origin)), Index(Index) {}

  std::optional<TuningEntry> read(std::vector<std::string> &Notes);
  /// The sentence for the first problem (valid after read() failed).
  const std::string &problem() const { return Problem; }

private:
  bool fail(const toml::node *At, const std::string &What) {
    if (Problem.empty())
      Problem = where(Origin, At ? At->source() : T.source()) + ": entry " +
                std::to_string(Index) + ": " + What;
    return false;
  }

  const toml::node *field(const toml::table &In, const std::string &Prefix,
                          const char *Name) {
    const toml::node *N = In.get(Name);
    if (!N)
      fail(&In, "missing field '" + Prefix + Name + "'");
    return N;
  }

  bool getString(const toml::table &In, const std::string &Prefix,
                 const char *Name, std::string &Out) {
    const toml::node *N = field(In, Prefix, Name);
    if (!N)
      return false;
    if (!N->is_string())
      return fail(N, "'" + Prefix + Name + "' must be a string");
    Out = N->as_string()->get();
    return true;
  }

  bool getInt(const toml::table &In, const std::string &Prefix,
              const char *Name, int64_t &Out) {
    const toml::node *N = field(In, Prefix, Name);
    if (!N)
      return false;
    if (!N->is_integer())
      return fail(N, "'" + Prefix + Name + "' must be an integer");
    Out = N->as_integer()->get();
    return true;
  }

  bool getNumber(const toml::table &In, const std::string &Prefix,
                 const char *Name, double &Out) {
    const toml::node *N = field(In, Prefix, Name);
    if (!N)
      return false;
    if (N->is_integer())
      Out = double(N->as_integer()->get());
    else if (N->is_floating_point())
      Out = N->as_floating_point()->get();
    else
      return fail(N, "'" + Prefix + Name + "' must be a number");
    return true;
  }

  /// The shape table: every key a size symbol with an integer extent.
  bool getShape(const toml::table &In, ProblemSize &Out) {
    ProblemSize Read;
    for (const auto &[Key, Node] : In) {
      std::string Name(Key.str());
      bool Ident =
          !Name.empty() && Name.size() <= 64 &&
          (std::isalpha(static_cast<unsigned char>(Name[0])) || Name[0] == '_');
      for (char C : Name)
        Ident =
            Ident && (std::isalnum(static_cast<unsigned char>(C)) || C == '_');
      if (!Ident)
        return fail(&Node, "'shape." + Name + "' is not a size symbol");
      if (!Node.is_integer())
        return fail(&Node, "'shape." + Name + "' must be an integer");
      Read.set(Name, Node.as_integer()->get());
    }
    if (Read.empty())
      return fail(&In, "'shape' has no sizes");
    Out = canonicalShape(Read);
    return true;
  }

  const toml::table *getTable(const toml::table &In, const char *Name) {
    const toml::node *N = field(In, "", Name);
    if (!N)
      return nullptr;
    if (!N->is_table()) {
      fail(N, "'" + std::string(Name) + "' must be a table");
      return nullptr;
    }
    return N->as_table();
  }

  /// Notes keys no schema field uses (kept, but reported).
  void noteUnknown(const toml::table &In, const std::string &Prefix,
                   std::set<std::string> Known,
                   std::vector<std::string> &Notes) {
    for (auto &&[Key, Node] : In)
      if (!Known.count(std::string(Key.str())))
        Notes.push_back(where(Origin, Node.source()) + ": entry " +
                        std::to_string(Index) + ": unknown field '" + Prefix +
                        std::string(Key.str()) + "' (ignored)");
  }

  bool readTime(const toml::table &In, std::string &Out);
  bool readConfig(TuningEntry &E);

  const toml::table &T;
  std::string Origin;
  size_t Index;
  std::string Problem;
};

bool EntryReader::readTime(const toml::table &In, std::string &Out) {
  const toml::node *N = field(In, "provenance.", "time");
  if (!N)
    return false;
  const char *Want = "'provenance.time' must be a date-time with an offset, "
                     "e.g. 2026-12-02T15:56:48Z";
  if (!N->is_date_time())
    return fail(N, Want);
  const toml::date_time &DT = N->as_date_time()->get();
  if (!DT.offset)
    return fail(N, Want);
  std::tm Tm{};
  Tm.tm_year = DT.date.year - 1900;
  Tm.tm_mon = DT.date.month - 1;
  Tm.tm_mday = DT.date.day;
  Tm.tm_hour = DT.time.hour;
  Tm.tm_min = DT.time.minute;
  Tm.tm_sec = DT.time.second;
  std::time_t Secs = timegm(&Tm) - std::time_t(DT.offset->minutes) * 60;
  std::tm Utc{};
  gmtime_r(&Secs, &Utc);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", &Utc);
  Out = Buf;
  return true;
}

bool EntryReader::readConfig(TuningEntry &E) {
  std::string Text;
  if (!getString(T, "", "config", Text))
    return false;
  KnobAssignment FromText;
  std::string Error;
  if (!parseKnobList(Text, FromText, Error) ||
      !applyKnobs(FromText, E.Config, Error))
    return fail(T.get("config"), "bad config '" + Text + "': " + Error);
  const toml::table *Knobs = getTable(T, "knobs");
  if (!Knobs)
    return false;
  KnobAssignment FromTable;
  for (auto &&[Key, Node] : *Knobs) {
    std::string Name(Key.str());
    if (Node.is_integer())
      FromTable[Name] = Node.as_integer()->get();
    else if (Node.is_string())
      FromTable[Name] = Node.as_string()->get();
    else
      return fail(&Node, "knob '" + Name + "' must be an integer or a name");
  }
  KernelConfig TableConfig;
  if (!applyKnobs(FromTable, TableConfig, Error))
    return fail(Knobs, "bad knobs table: " + Error);
  if (!(TableConfig == E.Config))
    return fail(Knobs, "the knobs table (" + TableConfig.str() +
                           ") disagrees with config '" + Text + "'");
  return true;
}

std::optional<TuningEntry> EntryReader::read(std::vector<std::string> &Notes) {
  TuningEntry E;
  const toml::table *Shape = nullptr, *Error = nullptr, *Search = nullptr,
                    *Device = nullptr, *Prov = nullptr;
  bool Ok = getString(T, "", "op", E.OpName) &&
            getString(T, "", "op_fingerprint", E.Key.OpFingerprint) &&
            (Shape = getTable(T, "shape")) && getShape(*Shape, E.Key.Shape) &&
            readConfig(E) && getNumber(T, "", "median_us", E.MedianUs) &&
            getNumber(T, "", "tflops", E.Tflops) &&
            (Error = getTable(T, "error")) &&
            getNumber(*Error, "error.", "max_abs", E.MaxAbsError) &&
            getNumber(*Error, "error.", "max_rel", E.MaxRelError) &&
            (Search = getTable(T, "search")) &&
            getString(*Search, "search.", "strategy", E.Strategy) &&
            getInt(*Search, "search.", "evaluations", E.Evaluations) &&
            (Device = getTable(T, "device")) &&
            getString(*Device, "device.", "name", E.Key.Device.Name) &&
            getString(*Device, "device.", "compute_capability",
                      E.Key.Device.ComputeCapability) &&
            getInt(*Device, "device.", "sm_count", E.Key.Device.SmCount) &&
            getInt(*Device, "device.", "driver_version",
                   E.Key.Device.DriverVersion) &&
            getString(*Device, "device.", "nvrtc_version",
                      E.Key.Device.NvrtcVersion) &&
            (Prov = getTable(T, "provenance")) &&
            getString(*Prov, "provenance.", "host", E.Host) &&
            readTime(*Prov, E.Time) &&
            getString(*Prov, "provenance.", "kiln_version", E.KilnVersion);
  if (!Ok)
    return std::nullopt;
  std::string Bad = validateEntry(E);
  if (!Bad.empty()) {
    fail(&T, Bad);
    return std::nullopt;
  }
  noteUnknown(T, "",
              {"op", "op_fingerprint", "shape", "config", "knobs", "median_us",
               "tflops", "error", "search", "device", "provenance"},
              Notes);
  noteUnknown(*Error, "error.", {"max_abs", "max_rel"}, Notes);
  noteUnknown(*Search, "search.", {"strategy", "evaluations"}, Notes);
  noteUnknown(*Device, "device.",
              {"name", "compute_capability", "sm_count", "driver_version",
               "nvrtc_version"},
              Notes);
  noteUnknown(*Prov, "provenance.", {"host", "time", "kiln_version"}, Notes);
  return E;
}

using State = TuningCacheContents::FileState;

void corrupt(TuningCacheContents &C, const std::string &Sentence) {
  C.State = State::Corrupt;
  C.Entries.clear();
  C.EntryLocations.clear();
  C.Problems.insert(C.Problems.begin(), Sentence);
}

/// The file is damaged as a whole (not TOML, or a count that does not
/// match): Sentence says where; the entries are then salvaged one by one.
struct Damage {
  std::string Sentence;
};

/// Parses the whole text; a file damaged as a whole is reported through
/// *Damaged (and C is left for salvageEntries).
TuningCacheContents parseWhole(std::string_view Text, const std::string &Origin,
                               std::optional<Damage> &Damaged) {
  TuningCacheContents C;
  C.State = State::Ok;
  toml::table Root;
  try {
    Root = toml::parse(Text, Origin);
  } catch (const toml::parse_error &E) {
    Damaged = Damage{where(Origin, E.source()) + ": not valid TOML (" +
                     std::string(E.description()) +
                     "): the file is damaged or truncated"};
    return C;
  }
  const toml::node *Version = Root.get("schema_version");
  if (!Version || !Version->is_integer()) {
    corrupt(C, where(Origin, Version ? Version->source() : Root.source()) +
                   ": no integer schema_version: not a kiln tuning cache, "
                   "or truncated; ignoring it");
    return C;
  }
  int64_t V = Version->as_integer()->get();
  if (V > TuningCacheSchemaVersion) {
    C.State = State::NewerSchema;
    C.Problems.push_back(
        where(Origin, Version->source()) + ": schema_version " +
        std::to_string(V) + " is newer than this kiln reads (" +
        std::to_string(TuningCacheSchemaVersion) + "); ignoring it");
    return C;
  }
  if (V < 1) {
    corrupt(C, where(Origin, Version->source()) + ": bad schema_version " +
                   std::to_string(V) + "; ignoring the file");
    return C;
  }
  const toml::node *Count = Root.get("entry_count");
  if (!Count || !Count->is_integer()) {
    corrupt(C, where(Origin, Count ? Count->source() : Root.source()) +
                   ": no integer entry_count: truncated or edited; ignoring "
                   "the file");
    return C;
  }
  const toml::node *List = Root.get("entry");
  const toml::array *Array = List ? List->as_array() : nullptr;
  if (List && (!Array || !Array->is_array_of_tables())) {
    corrupt(C, where(Origin, List->source()) +
                   ": 'entry' must be an array of tables ([[entry]]); "
                   "ignoring the file");
    return C;
  }
  size_t Found = Array ? Array->size() : 0;
  if (int64_t(Found) != Count->as_integer()->get()) {
    Damaged = Damage{where(Origin, Count->source()) + ": entry_count is " +
                     std::to_string(Count->as_integer()->get()) +
                     " but the file holds " + std::to_string(Found) +
                     " entries: truncated or edited"};
    return C;
  }
  for (auto &&[Key, Node] : Root)
    if (Key.str() != "schema_version" && Key.str() != "entry_count" &&
        Key.str() != "entry")
      C.Problems.push_back(where(Origin, Node.source()) + ": unknown key '" +
                           std::string(Key.str()) + "' (ignored)");
  for (size_t I = 0; I < Found; ++I) {
    const toml::table &T = *(*Array)[I].as_table();
    EntryReader R(T, Origin, I + 1);
    std::optional<TuningEntry> E = R.read(C.Problems);
    if (E) {
      C.Entries.push_back(std::move(*E));
      C.EntryLocations.push_back(where(Origin, T.source()));
    } else {
      C.Problems.push_back(R.problem() + "; entry skipped");
      ++C.SkippedEntries;
    }
  }
  return C;
}

/// The offsets of the lines that are exactly "[[entry]]" (each entry's
/// start in the canonical form kiln writes).
std::vector<size_t> entryStarts(std::string_view Text) {
  std::vector<size_t> Starts;
  for (size_t At = 0; At < Text.size();) {
    size_t End = Text.find('\n', At);
    if (End == std::string_view::npos)
      End = Text.size();
    std::string_view Line = Text.substr(At, End - At);
    if (!Line.empty() && Line.back() == '\r')
      Line.remove_suffix(1);
    if (Line == "[[entry]]")
      Starts.push_back(At);
    At = End + 1;
  }
  return Starts;
}

/// A piece of the file parsed on its own, its line numbers those of the
/// file (the lines before it are blank). nullopt when it is not TOML.
std::optional<toml::table> parsePiece(std::string_view Text, size_t From,
                                      size_t To, const std::string &Origin) {
  size_t LinesBefore =
      size_t(std::count(Text.begin(), Text.begin() + From, '\n'));
  std::string Piece(LinesBefore, '\n');
  Piece.append(Text.substr(From, To - From));
  try {
    return toml::parse(Piece, Origin);
  } catch (const toml::parse_error &) {
    return std::nullopt;
  }
}

/// Keeps every complete, valid entry of a file damaged as a whole: each
/// [[entry]] block is parsed and read on its own. A header that names a
/// newer schema stops it (its entries are not this kiln's to read).
TuningCacheContents salvageEntries(std::string_view Text,
                                   const std::string &Origin, const Damage &D) {
  TuningCacheContents C;
  C.State = State::Corrupt;
  std::vector<size_t> Starts = entryStarts(Text);
  size_t HeaderEnd = Starts.empty() ? Text.size() : Starts.front();
  // Entries are only this kiln's to read under a header that says they are
  // of its schema: a damaged header, or none, keeps nothing.
  std::optional<toml::table> Header = parsePiece(Text, 0, HeaderEnd, Origin);
  const toml::node *Version = Header ? Header->get("schema_version") : nullptr;
  int64_t V =
      Version && Version->is_integer() ? Version->as_integer()->get() : 0;
  if (V > TuningCacheSchemaVersion) {
    C.State = State::NewerSchema;
    C.Problems.push_back(
        where(Origin, Version->source()) + ": schema_version " +
        std::to_string(V) + " is newer than this kiln reads (" +
        std::to_string(TuningCacheSchemaVersion) + "); ignoring it");
    return C;
  }
  if (Starts.empty() || V < 1) {
    C.Problems.push_back(D.Sentence + (Starts.empty()
                                           ? "; ignoring it"
                                           : "; ignoring it (its header, with "
                                             "the schema_version, is damaged "
                                             "too)"));
    return C;
  }
  std::vector<std::string> EntryProblems;
  for (size_t I = 0; I < Starts.size(); ++I) {
    size_t To = I + 1 < Starts.size() ? Starts[I + 1] : Text.size();
    std::optional<toml::table> Piece = parsePiece(Text, Starts[I], To, Origin);
    const toml::array *List = Piece && Piece->get("entry")
                                  ? Piece->get("entry")->as_array()
                                  : nullptr;
    if (!List || List->size() != 1 || !(*List)[0].as_table()) {
      ++C.LostEntries;
      continue;
    }
    const toml::table &T = *(*List)[0].as_table();
    EntryReader R(T, Origin, I + 1);
    std::optional<TuningEntry> E = R.read(EntryProblems);
    if (!E) {
      EntryProblems.push_back(R.problem() + "; entry lost");
      ++C.LostEntries;
      continue;
    }
    C.Entries.push_back(std::move(*E));
    C.EntryLocations.push_back(where(Origin, T.source()));
  }
  C.Problems.push_back(
      Starts.empty()
          ? D.Sentence + "; ignoring it"
          : D.Sentence + "; kept " + std::to_string(C.Entries.size()) +
                " complete " + (C.Entries.size() == 1 ? "entry" : "entries") +
                ", lost " + std::to_string(C.LostEntries));
  C.Problems.insert(C.Problems.end(), EntryProblems.begin(),
                    EntryProblems.end());
  return C;
}

} // namespace

TuningCacheContents parseTuningCache(std::string_view Text,
                                     const std::string &Origin) {
  std::optional<Damage> Damaged;
  TuningCacheContents C = parseWhole(Text, Origin, Damaged);
  if (!Damaged)
    return C;
  return salvageEntries(Text, Origin, *Damaged);
}

TuningCacheContents readTuningCache(const std::string &Path) {
  TuningCacheContents C;
  PathInfo Info = inspectPath(Path);
  if (Info.Kind == FileKind::Missing || Info.Kind == FileKind::NullDevice)
    return C; // No file, or /dev/null: the documented "no cache".
  auto Unreadable = [&](const std::string &Why) {
    C.State = State::Unreadable;
    C.Problems.push_back(Path + ": cannot read the tuning cache: " + Why +
                         "; ignoring it");
    return C;
  };
  if (Info.Kind != FileKind::Regular)
    return Unreadable(whyNotReplaceable(Path, Info));
  std::string Text, Why;
  ReadResult R = readRegularFile(Path, Text, Why);
  if (R == ReadResult::OpenFailed && errno == ENOENT)
    return C; // Gone since it was inspected.
  if (R != ReadResult::Ok)
    return Unreadable(Why);
  return parseTuningCache(Text, Path);
}

} // namespace kiln::tuner
