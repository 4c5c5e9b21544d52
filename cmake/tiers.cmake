# The tiers of src/, bottom to top: the one table both the build (CMakeLists.txt: one library per
# tier, linking the tiers it uses) and the include check (cmake/check_tiers.cmake, run by every
# build) read. "name:used,used" lists the tiers a tier uses directly; a tier may include the
# headers of those and of everything below them (the transitive closure), nothing else. A tier uses
# only tiers listed above it, so the order is also the build's link order. README.md's "Layout of
# the code" table lists the folders in this order.
set(RRSWIN_TIERS
  "base:"                        # RRSWIN_HD, InputError: what every tier may need
  "numerics:base"                # one function per PTX instruction, the profiles, mma fragment maps
  "layout:numerics"              # layouts as data
  "model:layout"                 # phase program, weight image, readings, the golden model
  "assets:model"                 # synthetic weights and frames (demo, tests, benches), settle --oracle's launches
  "io:model"                     # file formats
  "engine:model"                 # the fast CPU engine
  "api:engine,assets"            # LaunchParams, run_frame, the network run (its demo inputs: assets)
  "capture:api,io,assets"        # d4r's launch dumps and replay captures
  "ptx:engine"                   # the generic PTX interpreter (texture/surface objects only; its mma runs the engine's SIMD kernels, engine/mma_tile)
  "cuda:api,io,assets"           # the CUDA ports' parts and host code (parameter blocks, launch checks)
  "bridge:ptx,capture"           # launches run by the PTX interpreter: enc5's, and any kernel's
  "gpu:bridge,cuda"              # rrswin-gpu, the launcher of the CUDA ports on a GPU (a program only: no library)
  "cli:bridge,cuda"              # the rrswin command
)

# Splits one row of RRSWIN_TIERS: sets ${name_var} to the tier and ${uses_var} to the list of the
# tiers it uses (empty for none).
function(rrswin_tier_row row name_var uses_var)
  string(REPLACE ":" ";" parts "${row}")
  list(GET parts 0 name)
  list(LENGTH parts n)
  set(uses)
  if(n GREATER 1)
    list(GET parts 1 uses)
    string(REPLACE "," ";" uses "${uses}")
  endif()
  set(${name_var} ${name} PARENT_SCOPE)
  set(${uses_var} ${uses} PARENT_SCOPE)
endfunction()
