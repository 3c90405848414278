pub mod swf;
