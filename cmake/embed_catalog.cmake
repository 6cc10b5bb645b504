# Concatenates the *.tsv files of a folder (sorted by name) into a C++ source file, at build time:
#   cmake -DDIR=descriptions -DOUT=catalog_data.cc -DNAMESPACE=allot::apiserver -DSYMBOL=kData \
#         -P embed_catalog.cmake
# The bytes become `extern const unsigned char SYMBOL[]` (NUL-terminated) and
# `extern const unsigned long SYMBOLSize`, in NAMESPACE (embed_bytes.cmake).
cmake_minimum_required(VERSION 3.21)  # file(COPY_FILE)
include(${CMAKE_CURRENT_LIST_DIR}/embed_bytes.cmake)
file(GLOB files "${DIR}/*.tsv")
list(SORT files)
set(all "")
foreach(f IN LISTS files)
  file(READ "${f}" content)
  string(APPEND all "${content}\n")
endforeach()
allot_write_embedded("${OUT}" "${NAMESPACE}" "${SYMBOL}" "${DIR}/*.tsv by cmake/embed_catalog.cmake"
                     "${all}")
