// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-browser: a small file browser on Qvfs's DirModel (the picture of what the
// framework is for). Usage: qvfs-browser [--screenshot FILE.png] [FOLDER-OR-URL]
// (--screenshot: saves the window after two seconds and quits; works offscreen too.)
#include "browserwindow.h"

#include <Qvfs/Url>

#include <QApplication>
#include <QDir>
#include <QIcon>
#include <QPixmap>
#include <QTimer>
#include <QTranslator>

#include <unistd.h>

namespace
{

/*!
 * Where no desktop named an icon theme (a bare X server, a window manager alone), uses a
 * common one that is installed, so that files still show their types; without any, the
 * views fall back to the style's file and folder icons (DisplayProxy).
 */
void chooseIconTheme()
{
    if (!QIcon::themeName().isEmpty() && QIcon::themeName() != QLatin1String("hicolor"))
        return;
    const QStringList common { QStringLiteral("breeze"), QStringLiteral("Adwaita"), QStringLiteral("oxygen"),
        QStringLiteral("Tango") };
    const QStringList paths = QIcon::themeSearchPaths();
    for (const QString &theme : common) {
        for (const QString &path : paths) {
            if (QDir(path).exists(theme + QLatin1String("/index.theme"))) {
                QIcon::setThemeName(theme);
                return;
            }
        }
    }
}

/*!
 * The example's strings are English; its catalog (qvfs-browser_en.ts, built in when Qt's
 * Linguist tools are there) only gives "%n item(s)" its English forms: "1 item", "2 items".
 */
void installPluralForms(QTranslator *plurals)
{
    if (plurals->load(QStringLiteral(":/i18n/qvfs-browser_en.qm")))
        QCoreApplication::installTranslator(plurals);
}

} // namespace

int main(int argc, char **argv)
{
    // The argument as its bytes: a folder name need not be UTF-8.
    QByteArray arg = QByteArrayLiteral(".");
    QString screenshot;
    for (int i = 1; i < argc; ++i) {
        if (QByteArray(argv[i]) == "--screenshot" && i + 1 < argc)
            screenshot = QString::fromLocal8Bit(argv[++i]);
        else
            arg = QByteArray(argv[i]);
    }
    QApplication app(argc, argv);
    QTranslator plurals;
    installPluralForms(&plurals);
    chooseIconTheme();
    QByteArray cwd(4096, '\0');
    if (!::getcwd(cwd.data(), size_t(cwd.size())))
        cwd = "/";
    cwd.truncate(qsizetype(qstrlen(cwd.constData())));
    QUrl start = Qvfs::Url::fromUserInput(arg, cwd);
    if (!start.isValid())
        start = QUrl(QStringLiteral("file:///"));
    BrowserWindow window(start);
    window.show();
    if (!screenshot.isEmpty()) {
        QTimer::singleShot(2000, &window, [&window, screenshot] {
            window.grab().save(screenshot);
            QApplication::quit();
        });
    }
    return app.exec();
}
