# Builds one self-contained web page into a C++ source file, at build time:
#   cmake -DHTML=page.html -DOUT=page_data.cc -DNAMESPACE=allot::apiserver -DSYMBOL=kPage \
#         -P embed_page.cmake
# The page's <link rel="stylesheet" href="X.css"> and <script src="X.js"></script> (files beside
# the page) are replaced by <style>/<script> elements holding those files, so what is served
# needs nothing else; then the bytes become `extern const unsigned char SYMBOL[]` (NUL-terminated)
# and `extern const unsigned long SYMBOLSize`, in NAMESPACE. A link to anything else is an error:
# the page must stay self-contained.
cmake_minimum_required(VERSION 3.21)  # file(COPY_FILE)
get_filename_component(dir "${HTML}" DIRECTORY)
file(READ "${HTML}" page)

# Replaces each element of `page` matching ELEMENT_RE, whose ATTR names a file beside the page,
# with <TAG> holding that file; WHAT names the file's kind in errors.
function(inline_files ELEMENT_RE ATTR TAG WHAT)
  string(REGEX MATCHALL "${ELEMENT_RE}" elements "${page}")
  foreach(element IN LISTS elements)
    string(REGEX REPLACE ".*${ATTR}=\"([^\"]+)\".*" "\\1" file "${element}")
    if(file MATCHES "[:/]")
      message(FATAL_ERROR "${HTML}: ${file}: only a ${WHAT} beside the page can be embedded")
    endif()
    file(READ "${dir}/${file}" content)
    string(REPLACE "${element}" "<${TAG}>\n${content}</${TAG}>" page "${page}")
  endforeach()
  set(page "${page}" PARENT_SCOPE)
endfunction()

inline_files("<link rel=\"stylesheet\" href=\"[^\"]+\">" href style stylesheet)
inline_files("<script src=\"[^\"]+\"></script>" src script script)
if(page MATCHES "<link |<script src=")
  message(FATAL_ERROR "${HTML}: a link or script that cannot be embedded is left")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/embed_bytes.cmake)
allot_write_embedded("${OUT}" "${NAMESPACE}" "${SYMBOL}" "${HTML} by cmake/embed_page.cmake" "${page}")
