// SPDX-License-Identifier: LGPL-2.1-or-later
#include "protocol.h"
#include "protocolregistry_p.h"

namespace Qvfs
{

class ProtocolData : public QSharedData
{
public:
    Internal::ProtocolInfo info;
    Protocol::Capabilities capabilities;
};

namespace
{
struct CapabilityName
{
    Protocol::Capability capability;
    const char *name;
};
constexpr CapabilityName CapabilityNames[] = {
    { Protocol::List, "list" },
    { Protocol::Stat, "stat" },
    { Protocol::Read, "read" },
    { Protocol::Write, "write" },
    { Protocol::Delete, "delete" },
    { Protocol::Mkdir, "mkdir" },
    { Protocol::Rename, "rename" },
    { Protocol::Copy, "copy" },
    { Protocol::Symlink, "symlink" },
    { Protocol::Chmod, "chmod" },
    { Protocol::Size, "size" },
    { Protocol::SetTime, "settime" },
    { Protocol::CopyToFile, "copyToFile" },
    { Protocol::CopyFromFile, "copyFromFile" },
    { Protocol::Watch, "watch" },
    { Protocol::Open, "open" },
    { Protocol::FreeSpace, "freeSpace" },
    { Protocol::Trash, "trash" },
};
} // namespace

Protocol::Protocol()
    : d(new ProtocolData)
{ }

Protocol::Protocol(const Protocol &other) = default;
Protocol &Protocol::operator=(const Protocol &other) = default;
Protocol::~Protocol() = default;

Protocol Protocol::find(const QString &scheme)
{
    Protocol p;
    p.d->info = Internal::ProtocolRegistry::instance().find(scheme);
    for (const CapabilityName &c : CapabilityNames) {
        if (p.d->info.capabilities.contains(QLatin1String(c.name)))
            p.d->capabilities |= c.capability;
    }
    return p;
}

int Protocol::maxWorkersPerHost() const
{
    return d->info.maxInstancesPerHost > 0 ? d->info.maxInstancesPerHost : d->info.maxInstances;
}

QStringList Protocol::schemes()
{
    return Internal::ProtocolRegistry::instance().schemes();
}

bool Protocol::isValid() const
{
    return d->info.isValid();
}

QString Protocol::scheme() const
{
    return d->info.name;
}

QStringList Protocol::aliases() const
{
    return d->info.aliases;
}

int Protocol::defaultPort() const
{
    return d->info.defaultPort;
}

Protocol::Capabilities Protocol::capabilities() const
{
    return d->capabilities;
}

bool Protocol::namesAreUtf8() const
{
    return d->info.utf8Names;
}

} // namespace Qvfs
