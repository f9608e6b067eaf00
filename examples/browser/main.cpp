// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-browser: a small file browser on Qvfs's DirModel (the picture of what the
// framework is for). Usage: qvfs-browser [--screenshot FILE.png] [FOLDER-OR-URL]
// (--screenshot: saves the window after two seconds and quits; works offscreen too.)
#include "browserwindow.h"

#include <Qvfs/Url>

#include <QApplication>
#include <QPixmap>
#include <QTimer>

#include <unistd.h>

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
