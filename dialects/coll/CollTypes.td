// Types and attributes of the `coll` dialect: !coll.chunk and #coll.ref.
#ifndef COLL_TYPES_TD
#define COLL_TYPES_TD

include "CollDialect.td"
include "CollEnums.td"

def Coll_ChunkType : TypeDef<Coll_Dialect, "Chunk"> {
  let mnemonic = "chunk";
  let summary = "the content of one chunk (or slice of a chunk) resident on one rank";
}

def Coll_BufRefAttr : AttrDef<Coll_Dialect, "BufRef"> {
  let mnemonic = "ref";
  let summary = "a half-open unit range of a rank's in, out or tmp buffer";
  let description = [{
    Written `in[4:6]`: units 4 and 5 of the input buffer. A plan cuts the message into
    equal units, so a reference holds for every message size.
  }];
  let parameters = (ins "::mlir::coll::BufferKind":$buffer, "int64_t":$offset,
                        "int64_t":$length);
  let hasCustomAssemblyFormat = 1;
}

#endif // COLL_TYPES_TD
