"""Squared distances of pairs of rows, the one geometric primitive of the engine."""

import numpy as np

__all__ = ["pair_sqdist"]


#: Rows per block when squared distances are computed for many pairs.
_CHUNK = 8192


def pair_sqdist(G, i, j, M=None):
    """Squared distances ``(g_i - g_j)' M (g_i - g_j)`` of many pairs.

    Computed in blocks, so memory stays O(block * r) whatever the number of
    pairs.

    Parameters
    ----------
    G : ndarray of shape (n, r)
        Coordinates of the n points (e.g. a low-rank factor's rows).
    i, j : ndarray of shape (c,)
        Row indices of the two points of each pair.
    M : ndarray of shape (r, r), default=None
        Symmetric matrix; ``None`` means the identity.

    Returns
    -------
    ndarray of shape (c,)
        The squared distance of each pair.
    """
    out = np.empty(len(i))
    for start in range(0, len(i), _CHUNK):
        sl = slice(start, start + _CHUNK)
        V = G[i[sl]] - G[j[sl]]
        if M is None:
            out[sl] = np.einsum("ij,ij->i", V, V)
        else:
            out[sl] = np.einsum("ij,ij->i", V @ M, V)
    return out
