# meshgen_add_mesh(<target> SPEC <file.yaml> [INVENTORY <source>] [NAME <name>]
#                  [OUTPUT_DIR <dir>])
#
# Generates <name>_mesh.h and <name>_mesh.c from SPEC at build time and adds
# a static library <target> that holds the tables and links meshgen::runtime.
# Link it and #include "<name>_mesh.h". The generator writes a depfile, so the
# tables are regenerated when the spec, the inventory or a topology file it
# names changes; it rewrites a file only when its bytes change, and the
# command's one OUTPUT is a stamp (MeshgenStamp.cmake says why), so a
# regeneration that changes nothing (a touched spec, an edited comment)
# recompiles and relinks nothing, and the next build, with make as with
# Ninja, has nothing to do.
#
# NAME defaults to the spec's `name:`. The output file names must be known
# at configure time, so meshgen itself is asked for them
# (`meshgen generate --print-outputs`), and the spec is a configure
# dependency: renaming the mesh re-runs cmake, which removes the files
# generated under the old name (a stale <old>_mesh.h would still compile,
# and fail only at link time). When the generator is built in
# this same build (add_subdirectory, FetchContent) it cannot run before the
# build, and the `name:` line is read here instead (a plain or quoted
# identifier); give NAME, or MESHGEN_EXECUTABLE, to avoid that. When NAME is
# given it is passed to the generator as --name and wins over the spec.
# INVENTORY is anything --inventory takes: a path (.xml / .yaml), "live" or
# "synthetic:<description>". Relative paths are taken from the current
# source directory. OUTPUT_DIR is created if missing.
#
# The generator: the cache variable MESHGEN_EXECUTABLE when set (a meshgen
# that runs on the build machine, for cross builds; docs/reference.md,
# "CMake"), else the target meshgen::meshgen (imported by find_package, or
# built in this project).
include_guard(GLOBAL)

# The custom command's last step, installed beside this file.
set(_MESHGEN_STAMP_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/MeshgenStamp.cmake")

set(MESHGEN_EXECUTABLE "" CACHE FILEPATH
    "The meshgen that meshgen_add_mesh() runs, instead of meshgen::meshgen (cross builds)")

# The generator as a command (out_cmd), what the custom command depends on
# (out_dep), and a path that can run now, at configure time (out_now; empty
# when the generator is built in this build).
function(_meshgen_generator out_cmd out_dep out_now)
  if(MESHGEN_EXECUTABLE)
    set(${out_cmd} "${MESHGEN_EXECUTABLE}" PARENT_SCOPE)
    set(${out_dep} "${MESHGEN_EXECUTABLE}" PARENT_SCOPE)
    set(${out_now} "${MESHGEN_EXECUTABLE}" PARENT_SCOPE)
  elseif(TARGET meshgen::meshgen)
    set(${out_cmd} meshgen::meshgen PARENT_SCOPE)
    set(${out_dep} meshgen::meshgen PARENT_SCOPE)
    get_target_property(imported meshgen::meshgen IMPORTED)
    if(imported)
      get_target_property(location meshgen::meshgen LOCATION)
      set(${out_now} "${location}" PARENT_SCOPE)
    else()
      set(${out_now} "" PARENT_SCOPE)
    endif()
  else()
    message(FATAL_ERROR "meshgen_add_mesh: no generator: set MESHGEN_EXECUTABLE to a meshgen "
                        "that runs on this machine, or build the generator "
                        "(MESHGEN_BUILD_GENERATOR)")
  endif()
endfunction()

# The spec's `name:` as cmake can read it, for builds whose generator does
# not exist yet at configure time: a plain, 'single' or "double" quoted
# identifier on a line of its own, a comment allowed after it.
function(_meshgen_spec_name target spec out)
  set(id "[A-Za-z_][A-Za-z0-9_]*")
  file(STRINGS "${spec}" lines REGEX "^name:")
  foreach(line IN LISTS lines)
    if(line MATCHES "^name:[ \t]*(${id}|\"${id}\"|'${id}')[ \t]*(#.*)?$")
      string(REGEX REPLACE "[\"']" "" name "${CMAKE_MATCH_1}")
      set(${out} "${name}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "meshgen_add_mesh(${target}): no `name:` line with an identifier in "
                      "${spec}; give NAME, or set MESHGEN_EXECUTABLE so that meshgen reads it")
endfunction()

# The outputs' names, from meshgen --print-outputs; the name is the header's
# stem. Fails configure with meshgen's own file:line:col message.
function(_meshgen_ask_outputs target generator spec dir out_name)
  execute_process(COMMAND "${generator}" generate "${spec}" --print-outputs -o "${dir}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "meshgen_add_mesh(${target}): `meshgen generate --print-outputs` "
                        "failed (${rc}):\n${err}")
  endif()
  string(REGEX MATCH "[^/\n]*_mesh\\.h\n" header "${out}")
  string(REGEX REPLACE "_mesh\\.h\n$" "" name "${header}")
  if(name STREQUAL "")
    message(FATAL_ERROR "meshgen_add_mesh(${target}): no header in the output of "
                        "`${generator} generate --print-outputs`:\n${out}")
  endif()
  set(${out_name} "${name}" PARENT_SCOPE)
endfunction()

# Removes the files that the last configure said this target generates and
# that it no longer does (its name or OUTPUT_DIR changed), then records
# outputs, the files it generates now, in a manifest of its own: a stale
# <old>_mesh.h left in an include directory would let a program that
# includes it compile against tables that no longer exist.
function(_meshgen_forget_outputs target outputs)
  set(manifest "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}.meshgen-outputs")
  if(EXISTS "${manifest}")
    file(STRINGS "${manifest}" before)
    foreach(file IN LISTS before)
      if(NOT file IN_LIST outputs AND EXISTS "${file}")
        file(REMOVE "${file}")
      endif()
    endforeach()
  endif()
  string(REPLACE ";" "\n" lines "${outputs}")
  file(WRITE "${manifest}" "${lines}\n")
endfunction()

function(meshgen_add_mesh target)
  cmake_parse_arguments(MG "" "SPEC;INVENTORY;NAME;OUTPUT_DIR" "" ${ARGN})
  if(NOT MG_SPEC)
    message(FATAL_ERROR "meshgen_add_mesh(${target}): SPEC is required")
  endif()
  get_filename_component(spec "${MG_SPEC}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT MG_OUTPUT_DIR)
    set(MG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${target}_meshgen")
  endif()
  get_filename_component(dir "${MG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  _meshgen_generator(generator generator_dep generator_now)
  if(NOT MG_NAME)
    # A new `name:` changes the outputs' names: cmake runs again.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${spec}")
    if(generator_now)
      _meshgen_ask_outputs(${target} "${generator_now}" "${spec}" "${dir}" MG_NAME)
    else()
      _meshgen_spec_name(${target} "${spec}" MG_NAME)
    endif()
  endif()
  set(depfile "${dir}/${MG_NAME}_mesh.d")
  set(args generate "${spec}" -o "${dir}" --name "${MG_NAME}" --depfile "${depfile}")
  if(MG_INVENTORY)
    if(MG_INVENTORY MATCHES "^(live|synthetic:.*)$")
      list(APPEND args --inventory "${MG_INVENTORY}")
    else()
      get_filename_component(inv "${MG_INVENTORY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      list(APPEND args --inventory "${inv}")
    endif()
  endif()
  # Ninja makes the directories of outputs, make does not: made here, and
  # again by the command should it have been removed since.
  file(MAKE_DIRECTORY "${dir}")
  set(base "${dir}/${MG_NAME}_mesh")
  _meshgen_forget_outputs(${target} "${base}.c;${base}.h;${depfile};${base}.stamp;${base}.stamp.d")
  # The stamp is the one OUTPUT: make compares its mtime with the spec's,
  # Ninja restats the BYPRODUCTS, and the files the generator left alone
  # (mg_write_changed) leave their dependents up to date with both.
  add_custom_command(
    OUTPUT "${base}.stamp"
    BYPRODUCTS "${base}.c" "${base}.h" "${depfile}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND ${generator} ${args}
    COMMAND "${CMAKE_COMMAND}" -D "DEPFILE=${depfile}" -D "STAMP=${base}.stamp"
            -P "${_MESHGEN_STAMP_SCRIPT}"
    DEPENDS "${spec}" ${generator_dep} "${_MESHGEN_STAMP_SCRIPT}"
    DEPFILE "${base}.stamp.d"
    COMMENT "meshgen: generating ${MG_NAME}_mesh.[ch] from ${MG_SPEC}"
    VERBATIM)
  add_library(${target} STATIC "${base}.c" "${base}.stamp")
  target_include_directories(${target} PUBLIC "${dir}")
  target_link_libraries(${target} PUBLIC meshgen::runtime)
  set_target_properties(${target} PROPERTIES MESHGEN_NAME "${MG_NAME}" MESHGEN_OUTPUT_DIR "${dir}")
endfunction()
