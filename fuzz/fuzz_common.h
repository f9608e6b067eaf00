// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared helpers of the libFuzzer targets.
#ifndef QVFS_FUZZ_COMMON_H
#define QVFS_FUZZ_COMMON_H

#include <QByteArray>
#include <QByteArrayView>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace QvfsFuzz
{

/*! Stops with a message: libFuzzer records the input as a crash. */
[[noreturn]] inline void fail(const char *what)
{
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

#define QVFS_FUZZ_CHECK(cond)                                                                                          \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            QvfsFuzz::fail(#cond);                                                                                     \
    } while (false)

/*!
 * Cuts the fuzzer's input into pieces: each piece is a 2-byte little-endian header
 * (bit 15: a flag for the target, bits 0..14: length) and that many bytes; a header that
 * claims more than is left takes the rest.
 */
class Pieces
{
public:
    Pieces(const uint8_t *data, size_t size)
        : m_p(reinterpret_cast<const char *>(data))
        , m_end(reinterpret_cast<const char *>(data) + size)
    { }
    bool next(QByteArrayView *piece, bool *flag)
    {
        if (m_end - m_p < 2)
            return false;
        const unsigned h = unsigned(uint8_t(m_p[0])) | (unsigned(uint8_t(m_p[1])) << 8);
        m_p += 2;
        *flag = h & 0x8000;
        const qsizetype n = std::min<qsizetype>(qsizetype(h & 0x7fff), m_end - m_p);
        *piece = QByteArrayView(m_p, n);
        m_p += n;
        return true;
    }

private:
    const char *m_p;
    const char *m_end;
};

/*! The inverse of Pieces, for seed corpora. */
inline void appendPiece(QByteArray &out, QByteArrayView piece, bool flag = false)
{
    const unsigned n = unsigned(std::min<qsizetype>(piece.size(), 0x7fff)) | (flag ? 0x8000u : 0u);
    out.append(char(n & 0xff));
    out.append(char(n >> 8));
    out.append(piece.data(), std::min<qsizetype>(piece.size(), 0x7fff));
}

} // namespace QvfsFuzz

#endif
