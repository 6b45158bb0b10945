# lit configuration for kiln: pass tests (kiln-opt), emitted CUDA (kiln
# compile --emit cuda) and the bad-input suite under error/ (kiln check).
import os
import lit.formats

config.name = "kiln"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".kiln", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "unit", "Inputs",
                   "gpu", "nvrtc", "broken", "sweep", "fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_binary_dir, "tests")

# Longest names first: "%kiln" is a prefix of the others.
config.substitutions.append(("%kiln-embed-c", os.path.join(config.kiln_bin_dir, "kiln-embed-c")))
config.substitutions.append(("%kiln-embed", os.path.join(config.kiln_bin_dir, "kiln-embed")))
config.substitutions.append(("%kiln-opt", os.path.join(config.kiln_bin_dir, "kiln-opt")))
config.substitutions.append(("%kiln", os.path.join(config.kiln_bin_dir, "kiln")))
config.substitutions.append(("%libkiln", os.path.join(os.path.dirname(config.kiln_bin_dir), "lib", "libkiln.so")))
config.substitutions.append(("%examples", os.path.join(config.kiln_source_dir, "examples")))
config.substitutions.append(("%srcroot", config.kiln_source_dir))
config.substitutions.append(("%templates", os.path.join(config.kiln_source_dir, "templates")))
config.substitutions.append(("%break-templates", "python3 " + os.path.join(
    config.kiln_source_dir, "tests", "emu", "broken", "break_templates.py")))
# Tests never touch the user's compile cache.
config.environment["KILN_CACHE_DIR"] = os.path.join(config.test_exec_root, "kiln-cache")
# The emulator's hostile choices are reproducible in the tests (a run with
# KILN_EMU_SEED unset draws a new seed and prints it).
config.environment["KILN_EMU_SEED"] = "2026"
config.environment["KILN_EMU_THREADS"] = "1"
for name in ["KILN_DEVICE", "KILN_EMU_ARCH", "KILN_TEMPLATE_DIR", "KILN_EMU_CXX"]:
    config.environment.pop(name, None)
# Tests of what kiln does with device files need to make one (mknod: root
# or CAP_MKNOD); they are marked REQUIRES: mknod.
def _can_mknod():
    import stat, tempfile
    with tempfile.TemporaryDirectory() as d:
        try:
            os.mknod(os.path.join(d, "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            return True
        except OSError:
            return False
if _can_mknod():
    config.available_features.add("mknod")
config.environment["PATH"] = os.pathsep.join(
    [config.kiln_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
