<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>BrowserWindow</name>
    <message numerus="yes">
        <source>%Ln item(s)</source>
        <translation>
            <numerusform>%Ln item</numerusform>
            <numerusform>%Ln items</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) copied</source>
        <translation>
            <numerusform>%n item copied</numerusform>
            <numerusform>%n items copied</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) cannot be moved to the trash on their volume. Delete for good?</source>
        <translation>
            <numerusform>%n item cannot be moved to the trash on its volume. Delete it for good?</numerusform>
            <numerusform>%n items cannot be moved to the trash on their volume. Delete them for good?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Delete %n item(s) for good?</source>
        <translation>
            <numerusform>Delete %n item for good?</numerusform>
            <numerusform>Delete %n items for good?</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DisplayProxy</name>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%n byte</numerusform>
            <numerusform>%n bytes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln item(s)</source>
        <translation>
            <numerusform>%Ln item</numerusform>
            <numerusform>%Ln items</numerusform>
        </translation>
    </message>
</context>
</TS>
