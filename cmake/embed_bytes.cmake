# Writes `content` into a C++ source file as `extern const unsigned char SYMBOL[]`
# (NUL-terminated) and `extern const unsigned long SYMBOLSize`, in NAMESPACE; included by the
# embed_*.cmake scripts. The bytes go as a hex list (a string literal could meet its own
# delimiter). OUT is rewritten only when it changed, so unchanged input recompiles nothing.
function(allot_write_embedded OUT NAMESPACE SYMBOL FROM content)
  file(WRITE "${OUT}.tmp" "${content}")
  file(READ "${OUT}.tmp" hex HEX)
  file(REMOVE "${OUT}.tmp")
  string(LENGTH "${hex}" hex_len)
  math(EXPR bytes "${hex_len} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  # Sixteen bytes a line.
  string(REGEX REPLACE "(0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],)" "\\1\n" hex "${hex}")
  file(WRITE "${OUT}.new"
    "// Generated from ${FROM}; do not edit.\n"
    "namespace ${NAMESPACE} {\n"
    "extern const unsigned char ${SYMBOL}[];\n"
    "extern const unsigned long ${SYMBOL}Size;\n"
    "const unsigned char ${SYMBOL}[] = {\n${hex}0x00};\n"
    "const unsigned long ${SYMBOL}Size = ${bytes};\n"
    "}  // namespace ${NAMESPACE}\n")
  file(COPY_FILE "${OUT}.new" "${OUT}" ONLY_IF_DIFFERENT)
  file(REMOVE "${OUT}.new")
endfunction()
