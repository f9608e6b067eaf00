// SPDX-License-Identifier: LGPL-2.1-or-later
#include "backend.h"

#include <QMap>

namespace QvfsConformance
{

Item file(const QByteArray &path, const QByteArray &content)
{
    Item i;
    i.path = path;
    i.content = content;
    return i;
}

Item filled(const QByteArray &path, qint64 size, char fill)
{
    Item i;
    i.path = path;
    i.fill = fill;
    i.fillSize = size;
    return i;
}

Item dir(const QByteArray &path)
{
    Item i;
    i.kind = Item::Dir;
    i.path = path;
    return i;
}

QByteArray Backend::names(Capabilities caps)
{
    static const QList<QPair<Capability, const char *>> all {
        { List, "list" },
        { Stat, "stat" },
        { Read, "read" },
        { Write, "write" },
        { Mkdir, "mkdir" },
        { Delete, "delete" },
        { Rename, "rename" },
        { Seed, "seed" },
        { RawNames, "raw names" },
        { Watch, "watch" },
        { NoServerRename, "no server rename" },
    };
    QList<QByteArray> out;
    for (const auto &c : all) {
        if (caps & c.first)
            out << c.second;
    }
    return out.join(", ");
}

Backend::~Backend() = default;

Backend::Capabilities Backend::itemCapabilities(QByteArrayView) const
{
    return capabilities();
}

bool Backend::start(QByteArray *)
{
    return true;
}

void Backend::stop() { }

namespace
{
QMap<QByteArray, BackendFactory> &registry()
{
    static QMap<QByteArray, BackendFactory> r;
    return r;
}
} // namespace

BackendRegistration::BackendRegistration(const char *name, BackendFactory factory)
{
    registry().insert(QByteArray(name), factory);
}

std::vector<std::unique_ptr<Backend>> createBackends(QList<QByteArray> *unknown)
{
    const QByteArray only = qgetenv("QVFS_CONFORMANCE_BACKENDS");
    const QList<QByteArray> wanted = only.isEmpty() ? QList<QByteArray>() : only.split(',');
    for (const QByteArray &w : wanted) {
        if (!registry().contains(w))
            unknown->append(w);
    }
    std::vector<std::unique_ptr<Backend>> out;
    for (auto it = registry().cbegin(); it != registry().cend(); ++it) {
        if (wanted.isEmpty() || wanted.contains(it.key()))
            out.push_back(it.value()());
    }
    return out;
}

} // namespace QvfsConformance
