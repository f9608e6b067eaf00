// SPDX-License-Identifier: LGPL-2.1-or-later
#include "urlidentity.h"
#include "protocolregistry_p.h"
#include "url.h"
#include "url_p.h"

namespace Qvfs::Url
{

using namespace Detail;

namespace
{
QUrl normalizedByRegistry(const QUrl &url)
{
    if (!url.isValid() || isLocalFile(url))
        return normalizedFor(url, QString(), -1);
    const Internal::ProtocolInfo info = Internal::ProtocolRegistry::instance().find(url.scheme());
    return info.isValid() ? normalizedFor(url, info.name, info.defaultPort) : normalizedFor(url, QString(), -1);
}
} // namespace

QUrl normalized(const QUrl &url)
{
    return normalizedByRegistry(url);
}

QString schedulerKey(const QUrl &url)
{
    return keyOfNormalized(normalizedByRegistry(url));
}

bool isAncestorOrSame(const QUrl &ancestor, const QUrl &url)
{
    return isAncestorOrSameNormalized(normalizedByRegistry(ancestor), normalizedByRegistry(url));
}

} // namespace Qvfs::Url
