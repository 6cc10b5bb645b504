// What the OpenAPI documents say of each API type and field (`kubectl explain`), from the
// catalog in discovery/descriptions/*.tsv, embedded at build time.
//
// Each line of a catalog file is `KEY<TAB>DESCRIPTION`: KEY is a type's name as Allot's API
// structs spell it (`PodSpec`, the SchemaNode's type_name) or `Type.field` with the field's JSON
// name (`PodSpec.nodeName`). Lines starting with `#`, and blank lines, are skipped. The
// descriptions are Allot's own words for Kubernetes' semantics.
//
// The catalog is parsed once, on first use; the views point into the embedded bytes and live as
// long as the process. Thread-safe.
#pragma once

#include <string_view>
#include <vector>

namespace allot::apiserver {

// The description of a type, or of one of its fields; empty when the catalog has none.
std::string_view TypeDescription(std::string_view type);
std::string_view FieldDescription(std::string_view type, std::string_view field);

// Every key in the catalog, in file order (a test checks that each names a type or field that
// exists), and the lines that are not `KEY<TAB>DESCRIPTION` (for the same test; none in a good
// catalog).
std::vector<std::string_view> DescriptionKeys();
std::vector<std::string_view> MalformedDescriptionLines();

}  // namespace allot::apiserver
