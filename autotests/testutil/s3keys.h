// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_S3KEYS_H
#define QVFS_TESTUTIL_S3KEYS_H

// Many small objects made fast, for the s3 worker's test and benchmark: straight through
// the worker's engine (S3::Client), from several threads at once (radosgw answers a few
// hundred PUTs a second over parallel connections, a few dozen over one). Header-only:
// its users link qvfs_s3_engine, which qvfstestutil_base does not.

#include "httpclient_p.h"
#include "s3client_p.h"

#include <QAtomicInt>
#include <QThread>

#include <functional>

namespace QvfsTest
{

/*!
 * PUTs \a count objects into the bucket of \a bucketUrl (an s3+http:// URL) with the keys
 * \a access / \a secret, object i under the key \a keyOf(i) holding \a dataOf(i), from
 * \a threads clients at once. Returns how many failed.
 */
inline int putObjectsInParallel(const QUrl &bucketUrl, const QByteArray &access, const QByteArray &secret, int count,
    const std::function<QByteArray(int)> &keyOf, const std::function<QByteArray(int)> &dataOf, int threads = 16)
{
    QAtomicInt next(0);
    QAtomicInt failed(0);
    QList<QThread *> running;
    for (int t = 0; t < threads; ++t) {
        running.append(QThread::create([&] {
            Qvfs::Http::HttpClient http; // one connection set per thread, made in it
            Qvfs::S3::Client s3(&http);
            s3.setKeys(Qvfs::S3::Keys { access, secret, {} });
            Qvfs::S3::Location at;
            Qvfs::S3::Location::parse(bucketUrl, &at);
            for (int i = next.fetchAndAddRelaxed(1); i < count; i = next.fetchAndAddRelaxed(1)) {
                if (!s3.put(at.withKey(keyOf(i)), dataOf(i)).ok())
                    failed.fetchAndAddRelaxed(1);
            }
        }));
        running.last()->start();
    }
    for (QThread *t : std::as_const(running)) {
        t->wait();
        delete t;
    }
    return failed.loadRelaxed();
}

} // namespace QvfsTest

#endif
