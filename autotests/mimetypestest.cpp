// SPDX-License-Identifier: LGPL-2.1-or-later
// The one MIME-type rule of mimetypes.h: the file type first, then the worker's field,
// then the name; the same answer for the models, the lister's filters and the workers.
#include "mimetypes.h"
#include "entry.h"

#include <QTest>

using namespace Qvfs;

namespace
{

Entry entry(const QByteArray &name, FileType type, const QByteArray &mime = {})
{
    Entry e;
    e.setString(Name, name);
    e.setNumber(Type, qint64(type));
    if (!mime.isEmpty())
        e.setString(MimeType, mime);
    return e;
}

} // namespace

class MimeTypesTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rule_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<int>("type");
        QTest::addColumn<QByteArray>("field");
        QTest::addColumn<QString>("expected");
        const int reg = int(FileType::Regular);
        QTest::newRow("by name") << QByteArray("report.pdf") << reg << QByteArray()
                                 << QStringLiteral("application/pdf");
        QTest::newRow("extension in capitals")
            << QByteArray("PHOTO.JPG") << reg << QByteArray() << QStringLiteral("image/jpeg");
        QTest::newRow("the worker's field before the name")
            << QByteArray("notes.pdf") << reg << QByteArray("text/plain") << QStringLiteral("text/plain");
        QTest::newRow("a folder whatever its name or field")
            << QByteArray("photos.jpg") << int(FileType::Directory) << QByteArray("image/jpeg")
            << QStringLiteral("inode/directory");
        QTest::newRow("a link") << QByteArray("x.txt") << int(FileType::Symlink) << QByteArray()
                                << QStringLiteral("inode/symlink");
        QTest::newRow("a fifo") << QByteArray("pipe") << int(FileType::Fifo) << QByteArray()
                                << QStringLiteral("inode/fifo");
        QTest::newRow("a name that says nothing")
            << QByteArray("qzx-no-extension") << reg << QByteArray() << QStringLiteral("application/octet-stream");
        QTest::newRow("unknown type: the name")
            << QByteArray("a.txt") << int(FileType::Unknown) << QByteArray() << QStringLiteral("text/plain");
    }
    void rule()
    {
        QFETCH(QByteArray, name);
        QFETCH(int, type);
        QFETCH(QByteArray, field);
        QFETCH(QString, expected);
        QCOMPARE(mimeTypeOf(entry(name, FileType(type), field)), expected);
        if (field.isEmpty())
            QCOMPARE(mimeTypeOf(FileType(type), name), expected); // what workers report
    }

    void byNameIsCached()
    {
        // One glob match per extension: the same type object, in any case.
        QCOMPARE(mimeTypeForFileName("a.PNG"), mimeTypeForFileName("b.png"));
        QVERIFY(mimeTypeForFileName("no-extension-here").isDefault());
        QVERIFY(mimeTypeForFileType(FileType::Regular).isEmpty());
    }
};

QTEST_GUILESS_MAIN(MimeTypesTest)
#include "mimetypestest.moc"
