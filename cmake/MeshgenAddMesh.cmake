# meshgen_add_mesh(<target> SPEC <file.yaml> [INVENTORY <source>] [NAME <name>]
#                  [OUTPUT_DIR <dir>])
#
# Generates <name>_mesh.h and <name>_mesh.c from SPEC at build time and adds
# a static library <target> that holds the tables and links meshgen::runtime.
# Link it and #include "<name>_mesh.h". The generator writes a depfile, so the
# tables are regenerated when the spec, the inventory or a topology file it
# names changes.
#
# NAME defaults to the `name:` line of the spec (read here, at configure
# time, because the output file names must be known now); when given, it is
# passed to the generator as --name and wins over the spec.
# INVENTORY is anything --inventory takes: a path (.xml / .yaml), "live" or
# "synthetic:<description>". Relative paths are taken from the current
# source directory.
include_guard(GLOBAL)

function(meshgen_add_mesh target)
  cmake_parse_arguments(MG "" "SPEC;INVENTORY;NAME;OUTPUT_DIR" "" ${ARGN})
  if(NOT MG_SPEC)
    message(FATAL_ERROR "meshgen_add_mesh(${target}): SPEC is required")
  endif()
  get_filename_component(spec "${MG_SPEC}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT MG_NAME)
    file(STRINGS "${spec}" name_line REGEX "^name:[ \t]*[A-Za-z_][A-Za-z0-9_]*" LIMIT_COUNT 1)
    string(REGEX REPLACE "^name:[ \t]*([A-Za-z_][A-Za-z0-9_]*).*" "\\1" MG_NAME "${name_line}")
    if(NOT MG_NAME)
      message(FATAL_ERROR "meshgen_add_mesh(${target}): no `name:` line in ${spec}; give NAME")
    endif()
  endif()
  if(NOT MG_OUTPUT_DIR)
    set(MG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${target}_meshgen")
  endif()
  set(args generate "${spec}" -o "${MG_OUTPUT_DIR}" --name "${MG_NAME}"
      --depfile "${MG_OUTPUT_DIR}/${MG_NAME}_mesh.d")
  if(MG_INVENTORY)
    if(MG_INVENTORY MATCHES "^(live|synthetic:.*)$")
      list(APPEND args --inventory "${MG_INVENTORY}")
    else()
      get_filename_component(inv "${MG_INVENTORY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      list(APPEND args --inventory "${inv}")
    endif()
  endif()
  set(outputs "${MG_OUTPUT_DIR}/${MG_NAME}_mesh.h" "${MG_OUTPUT_DIR}/${MG_NAME}_mesh.c")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND meshgen::meshgen ${args}
    DEPENDS "${spec}" meshgen::meshgen
    DEPFILE "${MG_OUTPUT_DIR}/${MG_NAME}_mesh.d"
    COMMENT "meshgen: generating ${MG_NAME}_mesh.[ch] from ${MG_SPEC}"
    VERBATIM)
  add_library(${target} STATIC "${MG_OUTPUT_DIR}/${MG_NAME}_mesh.c")
  target_include_directories(${target} PUBLIC "${MG_OUTPUT_DIR}")
  target_link_libraries(${target} PUBLIC meshgen::runtime)
  set_target_properties(${target} PROPERTIES MESHGEN_NAME "${MG_NAME}"
                        MESHGEN_OUTPUT_DIR "${MG_OUTPUT_DIR}")
endfunction()
