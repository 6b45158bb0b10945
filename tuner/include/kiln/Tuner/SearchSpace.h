//===- SearchSpace.h - A finite space of tuning configurations --*- C++ -*-===//
//
// The tuner's view of a space, whatever it came from (an op's tune block on a
// target, or a recorded Kernel Tuner cache file): named integer parameters and
// the list of points that are legal. Strategies search it by index; the
// neighbourhood is defined on each parameter's sorted domain.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_SEARCHSPACE_H
#define KILN_TUNER_SEARCHSPACE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::tuner {

class SearchSpace {
public:
  SearchSpace() = default;
  /// Names[i] names coordinate i of every point. Duplicate points are kept
  /// once (the first). Throws std::invalid_argument when a point's arity
  /// differs from Names.size().
  SearchSpace(std::vector<std::string> Names,
              std::vector<std::vector<int64_t>> Points);

  size_t size() const { return Points.size(); }
  bool empty() const { return Points.empty(); }
  size_t numParams() const { return Names.size(); }
  const std::vector<std::string> &names() const { return Names; }
  const std::vector<int64_t> &point(size_t Index) const {
    return Points[Index];
  }
  /// The sorted distinct values parameter Param takes over the space.
  const std::vector<int64_t> &domain(size_t Param) const {
    return Domains[Param];
  }
  /// The index of Point, or nullopt when it is not in the space.
  std::optional<size_t> find(const std::vector<int64_t> &Point) const;
  /// Points of the space that differ from point Index in exactly one
  /// parameter, by at most Radius steps along that parameter's domain.
  std::vector<size_t> neighbors(size_t Index, int Radius = 1) const;
  /// "name=value,name=value" for point Index.
  std::string describe(size_t Index) const;

private:
  std::vector<std::string> Names;
  std::vector<std::vector<int64_t>> Points;
  std::vector<std::vector<int64_t>> Domains;
  std::unordered_map<std::string, size_t> IndexOf; // key: joined values
};

} // namespace kiln::tuner

#endif // KILN_TUNER_SEARCHSPACE_H
