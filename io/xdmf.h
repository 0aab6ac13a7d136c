/* xdmf.h: the XDMF sidecar of a grid problem's result file, which ParaView
 * and VisIt open as a time series.
 *
 * FILE.xmf (FILE.h5 with .xmf for .h5, else FILE.h5.xmf) describes each
 * sample as a 3D co-rectilinear mesh (1D and 2D grids get unit dimensions):
 * the output's box of cells (h5out_grid), whose node attributes (one per
 * kept component, named as in /fields) are the datasets /xdmf/NAME/k of the
 * HDF5 file (named by its base name), virtual views of /states' rows: no
 * data is copied, and the pair can move together. Plain datasets, not
 * hyperslab DataItems: ParaView's default readers (Xdmf3ReaderS/T) read
 * these and show no array for hyperslabs; its legacy XDMFReader reads both.
 */
#ifndef QMOL_XDMF_H
#define QMOL_XDMF_H

#include "io/h5out.h"
#include "qmol.h"

#include <stddef.h>
#include <stdint.h>

/* The sidecar's path for an HDF5 path (malloc'd), or NULL (out of memory). */
char *xdmf_path(const char *h5path);

/* Writes the sidecar of h5path for problem p, whose output holds the grid
 * box g (g->ndims > 0), with K samples at times[0..K-1], under a temporary
 * name renamed into place. Returns 0, or -1 with err (nothing left behind). */
int xdmf_write(const char *h5path, const qmol_problem *p, const h5out_grid *g, const double *times,
               int64_t samples, char *err, size_t errlen);

#endif
