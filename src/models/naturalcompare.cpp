// SPDX-License-Identifier: LGPL-2.1-or-later
#include "naturalcompare.h"

#include <cstring>

namespace Qvfs
{

namespace
{
inline bool isDigit(unsigned char c)
{
    return c >= '0' && c <= '9';
}
inline unsigned char fold(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}
} // namespace

int naturalCompare(QByteArrayView a, QByteArrayView b) noexcept
{
    const auto *p = reinterpret_cast<const unsigned char *>(a.data());
    const auto *pe = p + a.size();
    const auto *q = reinterpret_cast<const unsigned char *>(b.data());
    const auto *qe = q + b.size();
    int zeros = 0; // the first difference in leading zeros, a tie-break
    int letterCase = 0; // the first difference in case, the last tie-break
    while (p < pe && q < qe) {
        if (isDigit(*p) && isDigit(*q)) {
            // A number against a number: by value, whatever its length.
            const unsigned char *ps = p, *qs = q;
            while (p < pe && *p == '0')
                ++p;
            while (q < qe && *q == '0')
                ++q;
            const unsigned char *pd = p, *qd = q;
            while (pd < pe && isDigit(*pd))
                ++pd;
            while (qd < qe && isDigit(*qd))
                ++qd;
            if (pd - p != qd - q)
                return pd - p < qd - q ? -1 : 1;
            const int c = std::memcmp(p, q, size_t(pd - p));
            if (c)
                return c < 0 ? -1 : 1;
            if (!zeros && (p - ps) != (q - qs))
                zeros = (p - ps) < (q - qs) ? -1 : 1;
            p = pd;
            q = qd;
            continue;
        }
        if (*p != *q) {
            const unsigned char fp = fold(*p), fq = fold(*q);
            if (fp != fq)
                return fp < fq ? -1 : 1;
            if (!letterCase)
                letterCase = *p < *q ? -1 : 1;
        }
        ++p;
        ++q;
    }
    if (p < pe)
        return 1;
    if (q < qe)
        return -1;
    return zeros ? zeros : letterCase;
}

} // namespace Qvfs
