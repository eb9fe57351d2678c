//! The window's frames as iced runs them with tiny-skia (for the examples that measure the
//! window): the view built into the user interface (its cache kept from frame to frame), the
//! interface drawn, and what changed since the last frame rasterised (the compositor's
//! damage), 1280×820 at scale 1.
// Each example uses part of it.
#![allow(dead_code)]

use std::time::Instant;

use cohort_gui::{App, Message};
use iced::{Font, Pixels, Rectangle, Size, Theme};
use iced_core::renderer::{self, Headless};
use iced_runtime::user_interface::{Cache, UserInterface};
use iced_tiny_skia::Layer;
use iced_tiny_skia::graphics::{Viewport, damage};

pub const SIZE: Size = Size::new(1280.0, 820.0);

pub struct Window {
    pub renderer: iced::Renderer,
    pixmap: tiny_skia::Pixmap,
    mask: tiny_skia::Mask,
    viewport: Viewport,
    cache: Option<Cache>,
    last: Option<Vec<Layer>>,
    theme: Theme,
}

impl Window {
    pub fn new() -> Self {
        let renderer = iced::futures::executor::block_on(<iced::Renderer as Headless>::new(
            Font::with_name("Fira Sans"),
            Pixels(16.0),
            None,
        ))
        .expect("a renderer");
        Window {
            renderer,
            pixmap: tiny_skia::Pixmap::new(1280, 820).expect("a pixmap"),
            mask: tiny_skia::Mask::new(1280, 820).expect("a mask"),
            viewport: Viewport::with_physical_size(Size::new(1280, 820), 1.0),
            cache: Some(Cache::default()),
            last: None,
            theme: Theme::Dark,
        }
    }

    pub fn whole() -> Rectangle {
        Rectangle::with_size(SIZE)
    }

    /// Draws `ui` into the frame: what changed since the last frame (everything the first
    /// time, or when `all`). Returns the damage drawn.
    pub fn draw(
        &mut self,
        ui: &mut UserInterface<'_, Message, Theme, iced::Renderer>,
        cursor: iced::mouse::Cursor,
        all: bool,
    ) -> Vec<Rectangle> {
        let style = renderer::Style {
            text_color: self.theme.palette().text,
        };
        ui.draw(&mut self.renderer, &self.theme, &style, cursor);
        let now = self.renderer.layers().to_vec();
        let damage = match (&self.last, all) {
            (Some(before), false) => damage::diff(before, &now, |l| vec![l.bounds], Layer::damage),
            _ => vec![Self::whole()],
        };
        let damage = damage::group(damage, Self::whole());
        self.renderer.draw(
            &mut self.pixmap.as_mut(),
            &mut self.mask,
            &self.viewport,
            &damage,
            self.theme.palette().background,
        );
        self.last = Some(now);
        damage
    }

    /// Saves the frame as a PNG file.
    pub fn save(&self, path: &std::path::Path) {
        let _ = self.pixmap.save_png(path);
    }

    /// A frame after the application's state changed (as the runtime does after a
    /// message): the view built and laid out, drawn, what changed rasterised. Milliseconds.
    pub fn frame(&mut self, app: &App) -> f64 {
        let t = Instant::now();
        let cache = self.cache.take().unwrap_or_default();
        let mut ui = UserInterface::build(app.view(), SIZE, cache, &mut self.renderer);
        let _ = self.draw(&mut ui, iced::mouse::Cursor::Unavailable, false);
        self.cache = Some(ui.into_cache());
        t.elapsed().as_secs_f64() * 1000.0
    }
}
