/*===- embed_c.c - kiln from C (kiln.h) -----------------------------------===*
 *
 * Loads a bundle written by `kiln bundle` (no compiler involved), or
 * specializes an op from a .kiln file with the JIT, then prints the kernel's
 * parameters and configuration and shows how a bad launch is reported.
 *
 *   kiln-embed-c --bundle OUT.kbundle OP_NAME M N K
 *   kiln-embed-c --jit OP.kiln ARCH M N K
 *
 *===----------------------------------------------------------------------===*/
#include "kiln.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(kiln_status s, const char *what) {
  if (s == KILN_OK)
    return 1;
  fprintf(stderr, "kiln-embed-c: %s: %s: %s\n", what, kiln_status_name(s),
          kiln_last_error());
  return 0;
}

int main(int argc, char **argv) {
  kiln_kernel kernel = NULL;
  if (argc == 7 && strcmp(argv[1], "--bundle") == 0) {
    kiln_bundle bundle = NULL;
    if (!check(kiln_bundle_load(argv[2], &bundle), "kiln_bundle_load"))
      return 1;
    kiln_status s = kiln_bundle_kernel(bundle, argv[3], atoll(argv[4]),
                                       atoll(argv[5]), atoll(argv[6]), &kernel);
    kiln_bundle_destroy(bundle);
    if (!check(s, "kiln_bundle_kernel"))
      return 1;
  } else if (argc == 7 && strcmp(argv[1], "--jit") == 0) {
    kiln_jit jit = NULL;
    kiln_op op = NULL;
    if (!check(kiln_jit_create(argv[3], NULL, &jit), "kiln_jit_create"))
      return 1;
    kiln_status s = kiln_op_load_file(jit, argv[2], NULL, &op);
    if (s == KILN_OK)
      s = kiln_op_specialize(op, atoll(argv[4]), atoll(argv[5]), atoll(argv[6]),
                             NULL, &kernel);
    kiln_op_destroy(op);
    kiln_jit_destroy(jit);
    if (!check(s, "specialize"))
      return 1;
  } else {
    fprintf(stderr, "usage: kiln-embed-c --bundle FILE OP M N K\n"
                    "       kiln-embed-c --jit OP.kiln ARCH M N K\n");
    return 2;
  }

  printf("config  %s (%s)\n", kiln_kernel_config(kernel),
         kiln_kernel_config_source(kernel));
  for (size_t i = 0; i < kiln_kernel_num_params(kernel); ++i) {
    const char *name = NULL;
    kiln_dtype dtype = KILN_F32;
    int32_t rank = 0;
    kiln_kernel_param(kernel, i, &name, &dtype, &rank);
    printf("param   %zu: %s, dtype %d, rank %d\n", i + 1, name, (int)dtype,
           (int)rank);
  }
  /* A launch with no arguments is refused before anything reaches the GPU. */
  kiln_status s = kiln_kernel_launch(kernel, NULL, 0, NULL);
  printf("launch with no arguments: %s: %s\n", kiln_status_name(s),
         kiln_last_error());
  kiln_kernel_destroy(kernel);
  return 0;
}
