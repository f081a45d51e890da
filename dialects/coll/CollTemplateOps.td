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
    chunks (`tensor.empty`, `tensor.insert`, `tensor.extract`) and the `coll.tmpl.*` ops, which
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

#endif // COLL_TEMPLATE_OPS_TD
