// SPDX-License-Identifier: LGPL-2.1-or-later
#include "protocolregistry_p.h"
#include "qvfs_debug.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cstring>
#include <dirent.h>
#include <dlfcn.h>

namespace Qvfs::Internal
{

namespace
{
constexpr qsizetype MaxDescription = 64 * 1024;

ProtocolInfo readInfo(const QString &jsonPath, const QString &scheme)
{
    ProtocolInfo info;
    QFile f(jsonPath);
    if (!f.open(QIODevice::ReadOnly))
        return info;
    QString exec, error;
    if (!parseWorkerInfo(f.read(MaxDescription), scheme, &info, &exec, &error)) {
        qCDebug(QVFS_CORE) << "worker description" << jsonPath << "not used for" << scheme << ":" << error;
        return ProtocolInfo();
    }
    const QString exe = QFileInfo(jsonPath).absolutePath() + QLatin1Char('/') + exec;
    if (!QFileInfo(exe).isExecutable())
        return ProtocolInfo();
    info.executable = exe;
    return info;
}

QString libraryDir()
{
    Dl_info dl;
    if (dladdr(reinterpret_cast<void *>(&libraryDir), &dl) && dl.dli_fname)
        return QFileInfo(QFile::decodeName(dl.dli_fname)).absolutePath();
    return QString();
}

// qvfs-worker-*.json in \a dir, sorted by name. A plain readdir with a prefix and suffix
// test: QDir's name filter compiles a regular expression and stats every entry, which a
// one-shot client paid before starting its worker (and the library's own folder may be
// /usr/lib/<triplet>, with thousands of files).
QStringList descriptionsIn(const QString &dir)
{
    QStringList out;
    DIR *d = ::opendir(QFile::encodeName(dir).constData());
    if (!d)
        return out;
    static constexpr char Prefix[] = "qvfs-worker-";
    static constexpr char Suffix[] = ".json";
    const size_t prefixLen = sizeof Prefix - 1;
    const size_t suffixLen = sizeof Suffix - 1;
    while (const struct dirent *e = ::readdir(d)) {
        const size_t n = std::strlen(e->d_name);
        if (n <= prefixLen + suffixLen || std::memcmp(e->d_name, Prefix, prefixLen) != 0
            || std::memcmp(e->d_name + n - suffixLen, Suffix, suffixLen) != 0)
            continue;
        if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)
            continue;
        out.append(QFile::decodeName(QByteArray(e->d_name, qsizetype(n))));
    }
    ::closedir(d);
    out.sort();
    return out;
}
} // namespace

ProtocolRegistry &ProtocolRegistry::instance()
{
    static ProtocolRegistry registry;
    return registry;
}

QStringList ProtocolRegistry::searchPath() const
{
    QStringList dirs;
    const QString env = qEnvironmentVariable("QVFS_WORKER_PATH");
    if (!env.isEmpty())
        dirs += env.split(QLatin1Char(':'), Qt::SkipEmptyParts);
    const QString lib = libraryDir();
    if (!lib.isEmpty()) {
        dirs.append(QDir::cleanPath(lib + QStringLiteral("/" QVFS_WORKER_DIR_FROM_LIB)));
        // The library's own folder (a build tree): listed unconditionally, as one that
        // holds no description adds nothing, and checking costs a directory listing.
        dirs.append(lib);
    }
    dirs.append(QStringLiteral(QVFS_INSTALL_WORKER_DIR));
    dirs.removeDuplicates();
    return dirs;
}

ProtocolInfo ProtocolRegistry::scan(const QString &scheme) const
{
    const QStringList dirs = searchPath();
    // Fast path: the worker named after the scheme; then every description.
    for (const QString &dir : dirs) {
        const ProtocolInfo found
            = readInfo(dir + QStringLiteral("/qvfs-worker-") + scheme + QStringLiteral(".json"), scheme);
        if (found.isValid())
            return found;
    }
    for (const QString &dir : dirs) {
        const QStringList files = descriptionsIn(dir);
        for (const QString &file : files) {
            const ProtocolInfo found = readInfo(dir + QLatin1Char('/') + file, scheme);
            if (found.isValid())
                return found;
        }
    }
    return ProtocolInfo();
}

ProtocolInfo ProtocolRegistry::find(const QString &scheme)
{
    const QString key = scheme.toLower();
    QMutexLocker lock(&m_mutex);
    const auto it = m_cache.constFind(key);
    if (it != m_cache.constEnd())
        return it.value();
    const ProtocolInfo found = key.isEmpty() ? ProtocolInfo() : scan(key);
    qCDebug(QVFS_CORE) << "protocol" << key << "served by" << found.executable;
    m_cache.insert(key, found);
    return found;
}

QStringList ProtocolRegistry::schemes()
{
    QStringList candidates;
    const QStringList dirs = searchPath();
    for (const QString &dir : dirs) {
        const QStringList files = descriptionsIn(dir);
        for (const QString &file : files) {
            QFile f(dir + QLatin1Char('/') + file);
            if (f.open(QIODevice::ReadOnly))
                candidates += workerSchemes(f.read(MaxDescription));
        }
    }
    QStringList out;
    for (const QString &s : std::as_const(candidates)) {
        const ProtocolInfo info = find(s);
        if (info.isValid() && !out.contains(info.name))
            out.append(info.name);
    }
    out.sort();
    return out;
}

void ProtocolRegistry::reset()
{
    QMutexLocker lock(&m_mutex);
    m_cache.clear();
}

} // namespace Qvfs::Internal
