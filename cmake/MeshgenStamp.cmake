# cmake -D DEPFILE=<meshgen's depfile> -D STAMP=<stamp> -P MeshgenStamp.cmake
#
# The last step of meshgen_add_mesh()'s custom command (MeshgenAddMesh.cmake),
# run after `meshgen generate`: it touches the stamp, the command's one
# OUTPUT, and writes <stamp>.d, meshgen's depfile with the stamp as its
# target, for the command's DEPFILE.
#
# Why a stamp: meshgen rewrites a file only when its bytes change, so after a
# touched spec or an edited comment the .c keeps its old mtime. Ninja
# restats outputs and sees that nothing changed; make does not, and with the
# .c as the OUTPUT it would find it older than the spec on every run and run
# the generator forever. The stamp is always new after a run, so make, like
# Ninja, reaches a fixed point, while the .c and the .h (BYPRODUCTS) keep
# their mtimes and nothing is recompiled.
#
# Why the depfile is rewritten: meshgen's names the .c and the .h as its
# targets. Ninja wants a depfile's first target to be the command's first
# output (the stamp), and the Makefile generators copy the targets as they
# are, which would hang the inputs the depfile lists (an inventory, its
# topology files) on files that no rule makes, not on the stamp.
if(NOT DEPFILE OR NOT STAMP)
  message(FATAL_ERROR "MeshgenStamp.cmake: give -D DEPFILE=... -D STAMP=...")
endif()

# meshgen writes one rule, "targets: prerequisites", its paths escaped for
# Make: a space in a path always has a backslash before it, so the first ':'
# followed by a plain space or the end of the line ends the targets.
file(READ "${DEPFILE}" rule)
string(REGEX MATCH "^([^:]|:[^ \n])*:" targets "${rule}")
if(targets STREQUAL "")
  message(FATAL_ERROR "MeshgenStamp.cmake: no Make rule in ${DEPFILE}")
endif()
string(LENGTH "${targets}" skip)
string(SUBSTRING "${rule}" ${skip} -1 prerequisites)

# The stamp escaped as GCC's -MD escapes a target, which is how CMake reads a
# DEPFILE back: ' ', '#' and ':' get a backslash and the backslashes before
# them are doubled; '$' is written "$$"; other backslashes stay single.
string(REGEX REPLACE "(\\\\+)([ #:])" "\\1\\1\\2" target "${STAMP}")
string(REGEX REPLACE "([ #:])" "\\\\\\1" target "${target}")
string(REPLACE "$" "$$" target "${target}")
file(WRITE "${STAMP}.d" "${target}:${prerequisites}")
file(TOUCH "${STAMP}")
