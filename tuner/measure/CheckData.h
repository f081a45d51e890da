// Input patterns and the host reference that counts wrong output elements (nccl-tests #wrong).
#pragma once

#include "tuner/measure/BenchCase.h"

#include <cstddef>
#include <cstdint>

namespace collplan::measure {

/// Fills rank `rank`'s input (inputBlocks × count elements) with small integers chosen so that
/// every dtype represents them and every reduction of them exactly (sums of 1..4, products of 1
/// and 2, min/max over 0..49), whatever order the plan reduces in. The values are a hash of rank
/// and element, so no shift of a unit, swap of blocks or wrong peer leaves the output as it was.
void fillInput(const BenchCase &c, int rank, size_t count, void *in);

/// Sets every byte of rank `rank`'s output to 0xA5, so a plan that skips an element is caught.
void poisonOutput(const BenchCase &c, int rank, size_t count, void *out);

/// Writes the output rank `rank` must end with (the reference countWrong compares against).
void fillExpected(const BenchCase &c, int rank, size_t count, void *out);

/// The number of elements of rank `rank`'s output (outputBlocks × count) that differ, bit for bit,
/// from the host reference computed from every rank's fillInput pattern.
uint64_t countWrong(const BenchCase &c, int rank, size_t count, const void *out);

}  // namespace collplan::measure
