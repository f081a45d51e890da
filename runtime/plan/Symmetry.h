// Symmetric (rank-relative) plans: rank r's program as rank 0's under a rotation or XOR of ranks.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanError.h"

#include <optional>
#include <string>
#include <string_view>

namespace collplan {

std::string_view toString(SymmetryGroup group);
std::optional<SymmetryGroup> parseSymmetryGroup(std::string_view name);
/// The group names, comma separated, for error messages.
std::string symmetryGroupNames();

/// σ_r(x) of the group on `ranks` ranks: the rank (or chunk) that x of rank 0's program
/// stands for in rank r's.
int32_t symmetricImage(SymmetryGroup group, int64_t x, int rank, int ranks);
/// σ_r⁻¹(x): the rank (or chunk) of rank 0's program that stands for x in rank r's.
int32_t symmetricPreimage(SymmetryGroup group, int64_t x, int rank, int ranks);

/// Checks that `symmetry` can describe `plan` at all, from rank 0's program (`base`) alone:
/// at least 2 ranks, a collective without a root, XOR only on a power-of-two rank count, a stride
/// of `units / ranks` or 0, and every buffer reference one chunk, or (XOR) an aligned
/// power-of-two run of whole chunks, so that every rank's image of it is one range. Throws
/// PlanError at `path` (the "symmetric" member) naming the op and reference that break it.
void checkSymmetryForm(const Plan &plan, const PlanSymmetry &symmetry, const RankProgram &base,
                       const std::string &origin, const FieldPath &path);

/// Rank `rank`'s program: `base` (rank 0's) with every peer p replaced by σ_rank(p) and every
/// chunk c of a buffer that spans the whole message (in, out or tmp whose size is a multiple of
/// `units`) by σ_rank(c). A reference of several chunks becomes the range their images cover.
/// `base` must have passed checkSymmetryForm. O(ops and chunks referenced of `base`).
RankProgram instantiateProgram(const Plan &plan, const PlanSymmetry &symmetry,
                               const RankProgram &base, int rank);

/// Throws PlanError naming the first rank and op of `plan.programs` that is not rank 0's
/// instantiated for that rank (the plan claims a symmetry it does not have). Needs every program.
void checkSymmetryHolds(const Plan &plan, const std::string &origin, const FieldPath &path);

/// The symmetry `plan`'s programs obey (rotation before XOR, moving chunks before none), or
/// nothing. O(total ops) per candidate; a candidate usually fails at rank 1.
std::optional<PlanSymmetry> findSymmetry(const Plan &plan);

}  // namespace collplan
