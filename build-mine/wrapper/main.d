build-mine/wrapper/main.o: wrapper/main.c wrapper/ksnvcc.h
wrapper/ksnvcc.h:
