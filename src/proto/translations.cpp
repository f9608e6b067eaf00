// SPDX-License-Identifier: LGPL-2.1-or-later
#include "translations_p.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QStringList>
#include <QTranslator>

// Set by src/proto/CMakeLists.txt; the fuzzers compile this file without them.
#ifndef QVFS_INSTALL_LOCALE_DIR
#define QVFS_INSTALL_LOCALE_DIR "/usr/share/locale"
#endif
#ifndef QVFS_BUILD_DIR
#define QVFS_BUILD_DIR ""
#endif

namespace Qvfs::Internal
{
namespace
{

bool isEnglishOrC(const QByteArray &lang)
{
    return lang == "C" || lang == "POSIX" || lang.startsWith("C.") || lang.startsWith("en");
}

} // namespace

QString translationCatalog()
{
    QByteArray locale = qgetenv("LC_ALL");
    if (locale.isEmpty())
        locale = qgetenv("LC_MESSAGES");
    if (locale.isEmpty())
        locale = qgetenv("LANG");
    if (locale.isEmpty() || isEnglishOrC(locale))
        return {};
    QList<QByteArray> candidates;
    const QByteArray language = qgetenv("LANGUAGE");
    if (!language.isEmpty())
        candidates = language.split(':');
    candidates.append(locale);

    QStringList patterns;
    const QString buildDir = QStringLiteral(QVFS_BUILD_DIR);
    if (!buildDir.isEmpty()) {
        const QString buildBin = QFileInfo(buildDir + QStringLiteral("/bin")).canonicalFilePath();
        // A worker asks before it has a QCoreApplication.
        const QString programDir = QCoreApplication::instance()
            ? QCoreApplication::applicationDirPath()
            : QFileInfo(QStringLiteral("/proc/self/exe")).canonicalPath();
        if (!buildBin.isEmpty() && programDir == buildBin) {
            // ecm_install_po_files_as_qm() builds <build>/<lang>/qvfs_qt.qm.
            patterns << buildDir + QStringLiteral("/%1/qvfs_qt.qm") << buildDir + QStringLiteral("/po/%1/qvfs_qt.qm");
        }
    }
    patterns << QStringLiteral(QVFS_INSTALL_LOCALE_DIR "/%1/LC_MESSAGES/qvfs_qt.qm");

    for (const QByteArray &candidate : std::as_const(candidates)) {
        QByteArray lang = candidate;
        const qsizetype cut = lang.indexOf('.') >= 0 ? lang.indexOf('.') : lang.indexOf('@');
        if (cut >= 0)
            lang.truncate(cut);
        if (lang.isEmpty())
            continue;
        if (isEnglishOrC(lang))
            return {}; // the strings are English already
        QStringList langs { QString::fromLatin1(lang) };
        const qsizetype underscore = lang.indexOf('_');
        if (underscore > 0)
            langs << QString::fromLatin1(lang.left(underscore));
        for (const QString &l : std::as_const(langs)) {
            for (const QString &pattern : std::as_const(patterns)) {
                const QString path = pattern.arg(l);
                if (QFile::exists(path))
                    return path;
            }
        }
    }
    return {};
}

QString installTranslations()
{
    const QString path = translationCatalog();
    if (path.isEmpty() || !QCoreApplication::instance())
        return {};
    auto *translator = new QTranslator(QCoreApplication::instance());
    if (!translator->load(path)) {
        delete translator;
        return {};
    }
    QCoreApplication::installTranslator(translator);
    return path;
}

} // namespace Qvfs::Internal
