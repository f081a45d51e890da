// Schedule templates of the `coll` dialect: a level-2 schedule written once for every rank
// count, with scf loops and arith index arithmetic, instantiated per N (compiler/template).
#ifndef COLL_TEMPLATE_OPS_TD
#define COLL_TEMPLATE_OPS_TD

def Coll_TemplateOp : Coll_Op<"template", [Symbol, SingleBlock, NoTerminator,
                                          IsolatedFromAbove, AffineScope]> {
  let summary = "a schedule written once for every rank count (and named parameters)";
  let description = [{
    The body is straight-line code with loops and branches (`affine.for`, `affine.if`,
    `scf.for`, `scf.if`) over index arithmetic (`affine.apply`, `arith`), `tensor` tables of
    chunks (`tensor.empty`, `tensor.generate`, `tensor.insert`, `tensor.extract`) and the
    `coll.tmpl.*` ops, which
    take ranks and chunks as index values. The template is an affine scope: its parameters are
    symbols of the affine maps inside.
    Its block arguments are the `params` by name, in order: `ranks` (the rank count N) first,
    then any others (`root` for rooted kinds, `ranks-per-node`, `ranks-per-device`, or names
    of the template's own such as `rows`), each an index. `defaults` gives values of
    parameters that neither the caller nor the topology supplies; `tune` lists the values
    plan-tune tries. The `coll-instantiate` pass (and `plan-compile`, `plan-tune --schedule`)
    evaluates the body for one N and turns it into a `coll.schedule`, which `coll-verify`
    proves as any other.

    ```mlir
    coll.template @ring allreduce params ["ranks"] {
    ^bb0(%n: index):
      coll.tmpl.chunks %n
      affine.for %c = 0 to %n {
        %next = affine.apply affine_map<(c)[n] -> ((c + 1) mod n)>(%c)[%n]
        ...
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Coll_CollectiveKind:$kind,
                       StrArrayAttr:$params, OptionalAttr<DictionaryAttr>:$defaults,
                       OptionalAttr<DictionaryAttr>:$tune, OptionalAttr<StrAttr>:$summary);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name $kind `params` $params attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

class Coll_TemplateBodyOp<string mnemonic, list<Trait> traits = []>
    : Coll_Op<"tmpl." # mnemonic, traits> {
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::verify() { return verifyInTemplate(getOperation()); }
  }];
}

def Coll_TmplChunksOp : Coll_TemplateBodyOp<"chunks"> {
  let summary = "the chunks the message is cut into (allreduce, broadcast, reduce; default 1)";
  let arguments = (ins Index:$count);
  let assemblyFormat = "$count attr-dict";
}

def Coll_TmplRequireOp : Coll_TemplateBodyOp<"require"> {
  let summary = "a condition the parameters must meet; otherwise the template does not apply";
  let description = [{
    `coll.tmpl.require %ok, "rows must divide the rank count"`: instantiating with parameters
    where `%ok` is false fails with the message, the parameters and this op's location, and
    plan-tune reports the variant as not applicable for them.
  }];
  let arguments = (ins I1:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict";
}

def Coll_TmplInputOp : Coll_TemplateBodyOp<"input", [Pure]> {
  let summary = "rank R's initial contribution for chunk I (as coll.input)";
  let arguments = (ins Index:$rank, Index:$chunk);
  let results = (outs Coll_ChunkType:$result);
  let assemblyFormat = "`rank` $rank `chunk` $chunk attr-dict";
}

def Coll_TmplCopyOp : Coll_TemplateBodyOp<"copy"> {
  let summary = "moves a chunk to a rank (as coll.copy); `step` names its round";
  let arguments = (ins Coll_ChunkType:$src, Index:$rank, Optional<Index>:$step);
  let results = (outs Coll_ChunkType:$result);
  let assemblyFormat = "$src `to` `rank` $rank (`step` $step^)? attr-dict";
}

def Coll_TmplReduceOp : Coll_TemplateBodyOp<"reduce", [AttrSizedOperandSegments]> {
  let summary = "n-ary reduction at a rank in operand order (as coll.reduce)";
  let arguments = (ins Variadic<Coll_ChunkType>:$values, Index:$rank, Optional<Index>:$step);
  let results = (outs Coll_ChunkType:$result);
  let assemblyFormat = "$values `at` `rank` $rank (`step` $step^)? attr-dict";
}

def Coll_TmplReduceSendOp : Coll_TemplateBodyOp<"reduce_send", [AttrSizedOperandSegments]> {
  let summary = "reduces at one rank, writes the result at another (as coll.reduce_send)";
  let arguments = (ins Variadic<Coll_ChunkType>:$values, Index:$rank, Index:$dest,
                       Optional<Index>:$step);
  let results = (outs Coll_ChunkType:$result);
  let assemblyFormat = "$values `at` `rank` $rank `to` `rank` $dest (`step` $step^)? attr-dict";
}

def Coll_TmplDupOp : Coll_TemplateBodyOp<"dup"> {
  let summary = "one read, a write at each listed rank (as coll.dup): one result per rank";
  let arguments = (ins Coll_ChunkType:$src, Variadic<Index>:$ranks);
  let results = (outs Variadic<Coll_ChunkType>:$results);
  let assemblyFormat = "$src `to` `ranks` `[` $ranks `]` attr-dict `:` type($results)";
  let extraClassDefinition = "";  // its own verifier (CollTemplateOps.cpp)
}

def Coll_TmplOutputOp : Coll_TemplateBodyOp<"output"> {
  let summary = "binds the final content of rank R's output chunk I (as coll.output)";
  let arguments = (ins Coll_ChunkType:$value, Index:$rank, Index:$chunk);
  let assemblyFormat = "$value `rank` $rank `chunk` $chunk attr-dict";
}

//===----------------------------------------------------------------------===//
// Patterns: chains, exchanges and reductions over many ranks in one op
//===----------------------------------------------------------------------===//

/// A table of chunks, one per entry: what `tensor.empty`/`tensor.generate` make in a template.
def Coll_ChunkTable : Type<
    And<[RankedTensorOf<[Coll_ChunkType]>.predicate,
         CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getRank() == 1">]>,
    "table of chunks (tensor<?x!coll.chunk>)">,
    BuildableType<"::mlir::RankedTensorType::get({::mlir::ShapedType::kDynamic}, "
                  "::mlir::coll::ChunkType::get($_builder.getContext()))">;

def Coll_TmplDivideOp : Coll_TemplateBodyOp<"divide", [Pure]> {
  let summary = "exact division of index values; otherwise the template does not apply";
  let description = [{
    `%cols = coll.tmpl.divide %n, %rows, "rows must divide the rank count"` is N / rows where
    rows divides N; elsewhere instantiation fails with the message, as `coll.tmpl.require`.
  }];
  let arguments = (ins Index:$dividend, Index:$divisor, StrAttr:$message);
  let results = (outs Index:$result);
  let assemblyFormat = "$dividend `,` $divisor `,` $message attr-dict";
}

def Coll_TmplLog2Op : Coll_TemplateBodyOp<"log2", [Pure]> {
  let summary = "floor(log2(N)) of a positive index: the rounds of a butterfly over N ranks";
  let arguments = (ins Index:$value);
  let results = (outs Index:$result);
  let assemblyFormat = "$value attr-dict";
}

def Coll_TmplReduceChainOp : Coll_TemplateBodyOp<"reduce_chain", [AttrSizedOperandSegments]> {
  let summary = "reduces along a chain of ranks: the partial sum moves, each rank adds its own";
  let description = [{
    Two forms. Along a rank map, each rank adding its input of chunk `c`:

    ```mlir
    %sum = coll.tmpl.reduce_chain chunk %c ranks #next(%c)[%n] count %n
    ```

    visits the ranks `#next(k, %c)[%n]` for k = 0 .. count-1 (the map's first dimension is k,
    the operands in parentheses are its other dimensions): the input at the first, then at each
    next rank a copy of the partial sum arrives and is reduced with that rank's input (arrived
    value first). The result is the sum, at the last rank. Over a table of chunks:

    ```mlir
    %total = coll.tmpl.reduce_chain %partials
    ```

    folds the entries in order: the running value is copied to the rank of the next entry and
    reduced with it there (arrived value first); the result is at the last entry's rank.
  }];
  let arguments = (ins Optional<Coll_ChunkTable>:$table, Optional<Index>:$chunk,
                       OptionalAttr<AffineMapAttr>:$ranks, Variadic<Index>:$rankOperands,
                       Optional<Index>:$count);
  let results = (outs Coll_ChunkType:$result);
  let hasCustomAssemblyFormat = 1;
  let extraClassDefinition = "";  // its own verifier (CollTemplateOps.cpp)
}

def Coll_TmplCopyChainOp : Coll_TemplateBodyOp<"copy_chain", [AttrSizedOperandSegments]> {
  let summary = "moves a chunk along a chain of ranks, each copy sent on from the last";
  let description = [{
    ```mlir
    %copies = coll.tmpl.copy_chain %sum ranks #from(%c)[%n] count %n output chunk %c
    ```

    visits the ranks `#from(k, ...)` for k = 0 .. count-1, which start where `%sum` resides
    (k = 0): at each next rank a copy arrives from the one before. The result is the table of
    the `count` values in visiting order (`%sum` first). With `output chunk %c`, each value is
    also bound as that rank's output chunk `%c`, as it arrives.
  }];
  let arguments = (ins Coll_ChunkType:$src, AffineMapAttr:$ranks, Variadic<Index>:$rankOperands,
                       Index:$count, Optional<Index>:$chunk);
  let results = (outs Coll_ChunkTable:$result);
  let assemblyFormat = [{
    $src `ranks` custom<RankMap>($ranks, $rankOperands) `count` $count
    (`output` `chunk` $chunk^)? attr-dict
  }];
  let extraClassDefinition = "";  // its own verifier (CollTemplateOps.cpp)
}

def Coll_TmplExchangeOp : Coll_TemplateBodyOp<"exchange", [AttrSizedOperandSegments]> {
  let summary = "one round of pairwise exchange over a table: each entry reduced with its partner";
  let description = [{
    ```mlir
    #xor = affine_map<(i)[d] -> (i + d - ((i floordiv d) mod 2) * d * 2)>   // i xor d
    %next = coll.tmpl.exchange %t partner #xor()[%d] step %k
    ```

    For each entry i of the table (in order), a copy of entry `#xor(i)` moves to entry i's rank
    and the two are reduced there, the entry of the lower index first, so both partners compute
    the same value. The result is the table of these reductions. `step` names the round.
  }];
  let arguments = (ins Coll_ChunkTable:$table, AffineMapAttr:$partner,
                       Variadic<Index>:$partnerOperands, Optional<Index>:$step);
  let results = (outs Coll_ChunkTable:$result);
  let assemblyFormat = [{
    $table `partner` custom<RankMap>($partner, $partnerOperands) (`step` $step^)? attr-dict
  }];
  let extraClassDefinition = "";  // its own verifier (CollTemplateOps.cpp)
}

def Coll_TmplReduceToOp : Coll_TemplateBodyOp<"reduce_to"> {
  let summary = "reduces every entry of a table at one rank, in table order";
  let description = [{
    `%sum = coll.tmpl.reduce_to %partials rank %r`: each entry not already at rank `%r` is
    copied there, then all are reduced in one reduction in table order (a single entry is the
    result itself).
  }];
  let arguments = (ins Coll_ChunkTable:$table, Index:$rank);
  let results = (outs Coll_ChunkType:$result);
  let assemblyFormat = "$table `rank` $rank attr-dict";
}

#endif // COLL_TEMPLATE_OPS_TD
