// SPDX-License-Identifier: LGPL-2.1-or-later
// Big test files: written from a seeded generator and compared without reading them
// whole. Header-only, so tests that link no test library (the sftp engine's) use it too.
#ifndef QVFS_TESTUTIL_BIGFILE_H
#define QVFS_TESTUTIL_BIGFILE_H

#include <QByteArray>
#include <QCryptographicHash>

#include <cstring>
#include <fcntl.h>
#include <random>
#include <unistd.h>
#include <vector>

namespace QvfsTest
{

/*! Writes \a size pseudo-random bytes from \a seed to \a path (created or truncated). */
inline bool makeRandomFile(const QByteArray &path, qint64 size, quint64 seed)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    std::mt19937_64 rng(seed);
    std::vector<quint64> buf(1 << 17);
    qint64 left = size;
    while (left > 0) {
        for (quint64 &v : buf)
            v = rng();
        const qint64 n = qMin<qint64>(left, qint64(buf.size() * sizeof(quint64)));
        if (::write(fd, buf.data(), size_t(n)) != n) {
            ::close(fd);
            return false;
        }
        left -= n;
    }
    ::close(fd);
    return true;
}

/*! Whether the files \a a and \a b hold the same bytes. */
inline bool sameFiles(const QByteArray &a, const QByteArray &b)
{
    const int fa = ::open(a.constData(), O_RDONLY | O_CLOEXEC);
    const int fb = ::open(b.constData(), O_RDONLY | O_CLOEXEC);
    bool same = fa >= 0 && fb >= 0;
    std::vector<char> ba(1 << 20), bb(1 << 20);
    while (same) {
        const ssize_t na = ::read(fa, ba.data(), ba.size());
        ssize_t nb = 0;
        while (nb < na) {
            const ssize_t r = ::read(fb, bb.data() + nb, size_t(na - nb));
            if (r <= 0)
                break;
            nb += r;
        }
        if (na != nb || std::memcmp(ba.data(), bb.data(), size_t(na > 0 ? na : 0)) != 0)
            same = false;
        if (na <= 0) {
            char c;
            same = same && ::read(fb, &c, 1) == 0;
            break;
        }
    }
    if (fa >= 0)
        ::close(fa);
    if (fb >= 0)
        ::close(fb);
    return same;
}

/*! The SHA-256 of the file \a path (raw bytes), read in pieces; empty when it cannot be read. */
inline QByteArray sha256Of(const QByteArray &path)
{
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return QByteArray();
    QCryptographicHash h(QCryptographicHash::Sha256);
    std::vector<char> buf(1 << 20);
    ssize_t n;
    while ((n = ::read(fd, buf.data(), buf.size())) > 0)
        h.addData(QByteArrayView(buf.data(), n));
    ::close(fd);
    return n == 0 ? h.result() : QByteArray();
}

} // namespace QvfsTest

#endif
