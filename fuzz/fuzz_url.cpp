// SPDX-License-Identifier: LGPL-2.1-or-later
// URL helpers on arbitrary bytes: the input is up to three pieces (see fuzz_common.h):
// an argument / path / URL text, a working folder, and a name. Documented properties
// are checked: localPath(fromLocalPath(p)) is p with '/' runs collapsed, normalized()
// is idempotent, a child's fileName() is the name it was made from.
#include "fuzz_common.h"
#include "url.h"
#include "url_p.h"

#include <QUrl>

using namespace Qvfs;

namespace
{

QByteArray collapseSlashes(QByteArrayView p)
{
    QByteArray out;
    out.reserve(p.size());
    for (qsizetype i = 0; i < p.size(); ++i) {
        if (p[i] == '/' && !out.isEmpty() && out.endsWith('/'))
            continue;
        out.append(p[i]);
    }
    return out;
}

void exercise(const QUrl &u, QByteArrayView name)
{
    if (!u.isValid())
        return;
    (void)Url::localPath(u);
    (void)Url::fileName(u);
    (void)Url::parent(u);
    (void)Url::displayString(u);
    (void)Url::isLocalFile(u);
    // URL identity as the core computes it, for a protocol declaring a default port
    // (chosen by the input) and an alias of the URL's scheme.
    const int port = name.isEmpty() ? -1 : int(uchar(name.front())) * 256 + 1;
    const QString alias = name.size() > 1 && (name.at(1) & 1) ? QStringLiteral("canonical") : QString();
    const auto normalize = [&](const QUrl &x) { return Url::Detail::normalizedFor(x, alias, port); };
    const QUrl n = normalize(u);
    const QString key = Url::Detail::keyOfNormalized(n);
    if (n.isValid()) {
        QVFS_FUZZ_CHECK(normalize(n) == n);
        QVFS_FUZZ_CHECK(Url::Detail::keyOfNormalized(normalize(n)) == key);
    }
    const QUrl c = Url::child(u, name);
    if (c.isValid()) {
        (void)Url::localPath(c);
        (void)Url::Detail::isAncestorOrSameNormalized(n, normalize(c));
        if (Url::isSafeName(name))
            QVFS_FUZZ_CHECK(Url::fileName(c) == name.toByteArray());
    }
    (void)Url::Detail::isAncestorOrSameNormalized(normalize(c), n);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QvfsFuzz::Pieces pieces(data, size);
    QByteArrayView arg, cwd, name;
    bool flag = false;
    if (!pieces.next(&arg, &flag))
        return 0;
    pieces.next(&cwd, &flag);
    pieces.next(&name, &flag);
    // exact-size copies so that an overread is seen
    const QByteArray a = arg.toByteArray(), w = cwd.toByteArray(), nm = name.toByteArray();

    const bool nul = a.contains('\0');
    const QUrl local = Url::fromLocalPath(a);
    if (local.isValid()) {
        QVFS_FUZZ_CHECK(!nul && a.startsWith('/'));
        QVFS_FUZZ_CHECK(Url::localPath(local) == collapseSlashes(a));
        QVFS_FUZZ_CHECK(Url::isLocalFile(local));
        QVFS_FUZZ_CHECK(QUrl::fromEncoded(local.toEncoded(), QUrl::StrictMode) == local);
    } else {
        QVFS_FUZZ_CHECK(a.isEmpty() || nul || !a.startsWith('/'));
    }
    exercise(local, nm);
    exercise(Url::fromUserInput(a, w), nm);
    exercise(QUrl::fromEncoded(a), nm);
    (void)Url::isSafeName(nm);
    return 0;
}
